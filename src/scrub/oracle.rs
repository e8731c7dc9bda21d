//! The matcher's code before issue 9's speed-up, kept for tests only: the property tests
//! (`mod.rs`) compare what it finds with what the faster code finds, on generated needles and
//! texts.

use super::{one_per_end, Needles};

impl Needles {
    /// `find` as it was: every list gathered, allocated and merged, matching or not.
    pub(super) fn find_before(&self, s: &str) -> Vec<(usize, usize, usize)> {
        let mut lists: Vec<Vec<(usize, usize, usize)>> = self.matches(s).into();
        let mut encoded = Vec::new();
        self.base64_matches_in(s.as_bytes(), None, false, &mut |m| encoded.push(m));
        super::unescape_before::for_each_view(s, &mut |view, spans| {
            let raw = |(a, b, label): (usize, usize, usize)| (spans[a].0 as usize, spans[b - 1].1 as usize, label);
            lists.extend(
                self.matches(view).map(|list| list.into_iter().map(raw).filter(|m| m.0 < m.1).collect::<Vec<_>>()),
            );
            self.base64_matches_in(view.as_bytes(), None, false, &mut |m| {
                encoded.extend(Some(raw(m)).filter(|m| m.0 < m.1))
            });
        });
        lists.push(one_per_end(encoded));
        lists.retain(|l| !l.is_empty());
        if lists.is_empty() {
            return Vec::new();
        }
        self.merge_outside_markers(s, lists, false)
    }
}

impl Needles {
    /// `display_label` without its memos: the label and every fixed word read each time.
    pub(crate) fn display_label_before<'a>(&self, label: &'a str) -> &'a str {
        if !self.spells_value(label) {
            return label;
        }
        super::FALLBACK_LABELS.iter().copied().find(|f| !self.spells_value(f)).unwrap_or("")
    }

    /// `scrub` as it was: each match's label asked again.
    pub(super) fn scrub_before(&self, s: &str) -> Option<(String, Vec<String>)> {
        let groups = if self.is_empty() { Vec::new() } else { self.find(s, false) };
        if groups.is_empty() {
            return None;
        }
        let (mut out, mut labels, mut at) = (String::new(), Vec::<String>::new(), 0);
        for (start, end, label) in groups {
            let label = self.display_label_before(&self.labels[label]);
            out.push_str(&s[at..start]);
            out.push_str(&format!("[redacted: {label}]"));
            if !labels.iter().any(|l| l == label) {
                labels.push(label.to_string());
            }
            at = end;
        }
        out.push_str(&s[at..]);
        Some((out, labels))
    }

    /// `holds_value` as it was: every string scanned, however short.
    pub(super) fn holds_value_before(&self, s: &str) -> bool {
        let found = |text: &str| {
            let mut any = self.matches(text).iter().any(|l| !l.is_empty());
            self.base64_matches_in(text.as_bytes(), None, false, &mut |_| any = true);
            any
        };
        let mut any = found(s);
        super::unescape_before::for_each_view(s, &mut |view, _| any = any || found(view));
        any
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::forms::{base64, escape_json, escape_unicode, html_forms, percent, COMPONENT};
    use super::Needles;

    /// Characters that make needles overlap and share prefixes, and that every decoder reads.
    const ALPHABET: &[char] = &['a', 'b', '1', ' ', 'é', '/', '&', '<', '%', '+', '"', '\\', '~', '😀'];
    const LABELS: &[&str] = &["secret", "ab", "key", "redacted", "value", "aab"];
    /// Plain text between the pieces: base64 characters of both alphabets, line breaks, and
    /// characters that end a run.
    const GAP: &[char] = &['Q', 'a', '7', '/', '_', '-', '\n', '\r', ' ', '=', '.'];

    fn word(len: std::ops::Range<usize>) -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(ALPHABET), len).prop_map(|c| c.into_iter().collect())
    }

    /// A piece of text: plain characters, or a value as written or in a form the matcher reads
    /// (`form` picks which), or one of our markers.
    fn piece(values: &[String], pick: usize, form: usize, filler: &str) -> String {
        let v = &values[pick % values.len()];
        let b64 = |skip: usize, url: bool, pad: bool| {
            let framed: Vec<u8> = filler.bytes().take(skip).chain(v.bytes()).chain(filler.bytes()).collect();
            let alphabet = if url {
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
            } else {
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
            };
            base64(&framed, alphabet, pad)
        };
        match form % 12 {
            0 => filler.to_string(),
            1 | 2 => v.clone(),
            3 => escape_json(v),
            4 => escape_unicode(&escape_json(v), true),
            5 => percent(v, COMPONENT, pick % 2 == 0),
            6 => html_forms(v).get(pick % 8).cloned().unwrap_or_else(|| v.clone()),
            7..=9 => b64(form % 3, pick % 2 == 0, pick % 3 == 0),
            10 => format!("[redacted: {}]", LABELS[pick % LABELS.len()]),
            _ => format!(" {} ", &v[..v.char_indices().nth(2).map_or(v.len(), |(i, _)| i)]),
        }
    }

    /// Values with their label, how many of them are removed again, and the text's pieces
    /// (which value, which form, filler).
    type Case = (Vec<(String, usize)>, usize, Vec<(usize, usize, String)>);

    fn case() -> impl Strategy<Value = Case> {
        let values = prop::collection::vec((word(2..12), 0..LABELS.len()), 1..8);
        let pieces = prop::collection::vec((0..64usize, 0..64usize, word(0..5)), 0..10);
        (values, 0..4usize, pieces)
    }

    /// The values added under their labels, the first `removed` of them (all but one at most)
    /// removed again; and the values' texts.
    fn needles_of(values: &[(String, usize)], removed: usize) -> (Needles, Vec<String>) {
        let mut n = Needles::default();
        for (v, label) in values {
            n.add(v, LABELS[*label]);
        }
        for (v, _) in values.iter().take(removed.min(values.len() - 1)) {
            n.remove(v);
        }
        (n, values.iter().map(|(v, _)| v.clone()).collect())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// The faster `find` and `holds_value` find exactly what the code before them found,
        /// with short values, tombstones (removed values), and texts that hold the values
        /// verbatim, escaped, percent- and HTML-encoded and in base64 at every alignment.
        #[test]
        fn the_faster_matcher_finds_what_the_old_one_did((values, removed, pieces) in case()) {
            let (n, texts) = needles_of(&values, removed);
            let text: String = pieces.iter().map(|(pick, form, filler)| piece(&texts, *pick, *form, filler)).collect();
            // The whole text, and each piece alone (most of them short).
            let mut cases = vec![text];
            cases.extend(pieces.iter().map(|(pick, form, filler)| piece(&texts, *pick, *form, filler)));
            for t in &cases {
                prop_assert_eq!(n.find(t, false), n.find_before(t), "{:?}", t);
                prop_assert_eq!(n.holds_value(t), n.holds_value_before(t), "{:?}", t);
            }
        }

        /// The same on long texts, the values' forms far apart between runs of plain text and
        /// base64 characters (and line breaks, which continue a base64 run): a view is read
        /// only near its escapes, and its base64 runs only beside them.
        #[test]
        fn views_read_near_their_escapes_find_what_the_old_matcher_did(
            (values, removed, pieces) in case(),
            gaps in prop::collection::vec(prop::collection::vec(prop::sample::select(GAP), 0..80), 10),
        ) {
            let (n, texts) = needles_of(&values, removed);
            let mut text = String::new();
            for ((pick, form, filler), gap) in pieces.iter().zip(&gaps) {
                text.extend(gap.iter());
                text.push_str(&piece(&texts, *pick, *form, filler));
            }
            text.extend(gaps[9].iter());
            prop_assert_eq!(n.find(&text, false), n.find_before(&text), "{:?}", text);
            prop_assert_eq!(n.holds_value(&text), n.holds_value_before(&text), "{:?}", text);
        }

        /// `display_label` with its fixed word remembered shows what it showed when it scanned
        /// every word each time: labels asked before and after values that spell the fixed
        /// words (and the labels) are added and removed.
        #[test]
        fn display_label_remembers_only_while_the_set_is_unchanged(ops in prop::collection::vec((0..5usize, 0..3u8), 1..30)) {
            // Values that hold the fixed words one after the other, and labels built on them.
            const VALUES: [&str; 5] = ["secret", "value", "redacted", "secret-x", "item"];
            const LABELS: [&str; 4] = ["secret", "my value", "item", "x-secret-x"];
            let mut n = Needles::default();
            for (pick, op) in ops {
                match op {
                    // Under labels that may hold the values (and so show as a fixed word).
                    0 => drop(n.add(VALUES[pick], LABELS[pick % LABELS.len()])),
                    1 => n.remove(VALUES[pick]),
                    _ => {}
                }
                for label in LABELS {
                    prop_assert_eq!(n.display_label(label), n.display_label_before(label), "{:?}", label);
                }
                // Each match replaced by its label's display, asked twice in one text.
                let text = format!("{} and {} and {}", VALUES.join(" "), LABELS.join(" "), VALUES.join("/"));
                prop_assert_eq!(n.scrub(&text), n.scrub_before(&text));
            }
        }
    }

    /// Where `repeats_its_tokens` says so, the compact JSON of a value `scrub_value` has
    /// scrubbed holds nothing `scrub_json` finds: values with and without seam bytes and
    /// backslashes, values that lie in `true`, `false`, `null` or in numbers, short values,
    /// and values whose strings, keys and numbers hold the values in every form the matcher
    /// reads (so most of them are cut first). A third of the cases at least are answered yes.
    /// And where `settled` says so, `scrub_json_settled` finds what `scrub_json` finds: a quarter
    /// of the cases have values without seam bytes and strings with backslashes, quotes and
    /// escapes that an escape decoded joins to the quote after them (`&#92;`, `%5C`, a lone
    /// `\`); an eighth of the cases at least are settled with backslashes in the text.
    #[test]
    fn the_text_of_a_scrubbed_value_repeats_its_tokens() {
        use proptest::test_runner::{Config, TestRunner};
        let strategy = (
            case(),
            prop::sample::select(vec![0u8, 1, 1, 2]),
            prop::collection::vec((0..7usize, 0..64usize), 1..12),
            prop::sample::select(vec!["", "true", "null", "alse", "4111", "12", "1.5", "e3"]),
        );
        let mut runner = TestRunner::new(Config { cases: 2048, ..Config::default() });
        let counts = std::cell::Cell::new((0u32, 0u32, 0u32));
        runner
            .run(&strategy, |((values, removed, pieces), mode, shape, extra)| {
                // Half the cases without seam bytes or backslashes, where the answer can be yes;
                // a quarter with values without seam bytes, strings with anything.
                let clean = |v: &str| {
                    let kept = |c: &char| mode == 0 || !"\\\",:[]{}".contains(*c) || (mode == 2 && *c == '\\');
                    v.chars().filter(kept).collect::<String>()
                };
                let mut values: Vec<(String, usize)> = values.iter().map(|(v, l)| (clean(v), *l)).collect();
                values.retain(|(v, _)| v.chars().count() >= 2);
                if !extra.is_empty() {
                    values.push((extra.to_string(), 0));
                }
                if values.is_empty() {
                    return Ok(());
                }
                let removed = removed.min(values.len() - 1);
                let (n, texts) = needles_of(&values, removed);
                const JOINED: [&str; 8] = ["", "\\", "&#92;", "%5C", "&bsol;", "\\u00", "\u{AD}", "&#x5c"];
                let piece_at = |i: usize| {
                    let p = match pieces.get(i % pieces.len().max(1)) {
                        Some((pick, form, filler)) => piece(&texts, *pick, *form, filler),
                        None => texts[i % texts.len()].clone(),
                    };
                    if mode == 2 {
                        p + JOINED[i % JOINED.len()]
                    } else {
                        clean(&p)
                    }
                };
                let mut object = serde_json::Map::new();
                for (k, &(kind, i)) in shape.iter().enumerate() {
                    let item = match kind {
                        0 | 1 => serde_json::Value::String(piece_at(i)),
                        2 => serde_json::json!([piece_at(i), piece_at(i + 1), i]),
                        3 => serde_json::json!({ piece_at(i + 2): piece_at(i) }),
                        4 => serde_json::from_str(["4111", "1.5e3", "-12", "4.111e3", "0.5"][i % 5]).unwrap(),
                        5 => [serde_json::Value::Bool(true), serde_json::Value::Bool(false), serde_json::Value::Null]
                            [i % 3]
                            .clone(),
                        _ => serde_json::json!(i),
                    };
                    object.insert(format!("{}{k}", piece_at(i + 3)), item);
                }
                let mut value = serde_json::Value::Object(object);
                let unsettled = n.unsettled();
                n.scrub_value(&mut value, &mut String::new(), &mut Vec::new());
                let text = crate::json::write::text(&value);
                let (c, y, s) = counts.get();
                let repeats = n.repeats_its_tokens(&text, unsettled);
                let settled = n.settled(unsettled) && text.contains('\\');
                counts.set((c + 1, y + u32::from(repeats), s + u32::from(settled)));
                if repeats {
                    prop_assert_eq!(n.scrub_json(&text), None, "{:?} with {:?}", text, values);
                }
                if settled {
                    prop_assert_eq!(n.scrub_json_settled(&text), n.scrub_json(&text), "{:?} with {:?}", text, values);
                }
                Ok(())
            })
            .unwrap();
        let (cases, yes, settled) = counts.get();
        eprintln!("{cases} cases: {yes} repeat their tokens, {settled} settled with backslashes");
        assert!(yes * 3 >= cases, "answered yes in {yes} of {cases} cases");
        assert!(settled * 8 >= cases, "settled with backslashes in {settled} of {cases} cases");
    }
}

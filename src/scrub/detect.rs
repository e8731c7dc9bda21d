//! Detectors: a safety net for credentials a tool returns without declaring them. Each kind
//! is a format with a fixed prefix and structure, and a checksum where the format has one, so
//! that ordinary text and code (hashes, ids, base64 media) does not match (docs/detectors.md
//! lists each kind, how it is validated, and what a scan of 100 MB of ordinary files found).
//!
//! No regular expressions. First one pass over the bytes (`scan`) notes what each scanner
//! needs to find anything, so that a text holding no format's prefix or word costs that pass
//! alone; then only the scanners it calls for run, each exact: one linear pass over the maximal
//! runs of token characters
//! (`[A-Za-z0-9_-]`, so that a hit can only be a whole run: never part of a longer token),
//! dispatched on the run's first bytes; one pass over base64 runs for AWS secret keys (only
//! beside an access key id or a label naming one); and a `find` loop each for PEM private key
//! blocks and Slack webhook URLs, which hold other characters. Every byte is visited a bounded
//! number of times, counted in `work`.

use serde_json::Value;

/// The kinds of credentials found. The codes (`detected:<code>` in reports, keys of
/// `policy.detect`) are stable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    AwsAccessKeyId,
    AwsSecretAccessKey,
    GithubToken,
    GitlabToken,
    SlackToken,
    SlackWebhook,
    StripeKey,
    GoogleApiKey,
    Jwt,
    PrivateKey,
    NpmToken,
    OpenaiApiKey,
    AnthropicApiKey,
}

impl Kind {
    pub const ALL: [Kind; 13] = [
        Kind::AwsAccessKeyId,
        Kind::AwsSecretAccessKey,
        Kind::GithubToken,
        Kind::GitlabToken,
        Kind::SlackToken,
        Kind::SlackWebhook,
        Kind::StripeKey,
        Kind::GoogleApiKey,
        Kind::Jwt,
        Kind::PrivateKey,
        Kind::NpmToken,
        Kind::OpenaiApiKey,
        Kind::AnthropicApiKey,
    ];

    /// The code and the report's reason, as static strings (`Reason::as_str` returns one).
    pub fn code_and_reason(self) -> (&'static str, &'static str) {
        match self {
            Kind::AwsAccessKeyId => ("aws_access_key_id", "detected:aws_access_key_id"),
            Kind::AwsSecretAccessKey => ("aws_secret_access_key", "detected:aws_secret_access_key"),
            Kind::GithubToken => ("github_token", "detected:github_token"),
            Kind::GitlabToken => ("gitlab_token", "detected:gitlab_token"),
            Kind::SlackToken => ("slack_token", "detected:slack_token"),
            Kind::SlackWebhook => ("slack_webhook", "detected:slack_webhook"),
            Kind::StripeKey => ("stripe_key", "detected:stripe_key"),
            Kind::GoogleApiKey => ("google_api_key", "detected:google_api_key"),
            Kind::Jwt => ("jwt", "detected:jwt"),
            Kind::PrivateKey => ("private_key", "detected:private_key"),
            Kind::NpmToken => ("npm_token", "detected:npm_token"),
            Kind::OpenaiApiKey => ("openai_api_key", "detected:openai_api_key"),
            Kind::AnthropicApiKey => ("anthropic_api_key", "detected:anthropic_api_key"),
        }
    }

    pub fn code(self) -> &'static str {
        self.code_and_reason().0
    }

    /// What the agent and the user see for a hit.
    pub fn label(self) -> &'static str {
        match self {
            Kind::AwsAccessKeyId => "AWS access key ID",
            Kind::AwsSecretAccessKey => "AWS secret access key",
            Kind::GithubToken => "GitHub token",
            Kind::GitlabToken => "GitLab token",
            Kind::SlackToken => "Slack token",
            Kind::SlackWebhook => "Slack webhook URL",
            Kind::StripeKey => "Stripe secret key",
            Kind::GoogleApiKey => "Google API key",
            Kind::Jwt => "JSON Web Token",
            Kind::PrivateKey => "private key",
            Kind::NpmToken => "npm token",
            Kind::OpenaiApiKey => "OpenAI API key",
            Kind::AnthropicApiKey => "Anthropic API key",
        }
    }

    /// Its place in `ALL`, which lists the kinds in the order they are declared.
    fn bit(self) -> u16 {
        1 << self as u16
    }
}

/// Which kinds are on (`policy.detect`): all of them by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detect(u16);

impl Default for Detect {
    fn default() -> Self {
        Detect::ALL
    }
}

impl Detect {
    pub const ALL: Detect = Detect((1 << Kind::ALL.len()) - 1);
    pub const NONE: Detect = Detect(0);

    pub fn has(self, kind: Kind) -> bool {
        self.0 & kind.bit() != 0
    }

    pub fn is_none(self) -> bool {
        self.0 == 0
    }

    pub fn set(&mut self, kind: Kind, on: bool) {
        if on {
            self.0 |= kind.bit();
        } else {
            self.0 &= !kind.bit();
        }
    }

    /// Reads `true`, `false`, or `{ <code>: boolean }` (kinds not named keep their default,
    /// on). Errors name the offending key.
    pub fn from_json(v: &Value) -> Result<Detect, String> {
        match v {
            Value::Bool(true) => Ok(Detect::ALL),
            Value::Bool(false) => Ok(Detect::NONE),
            Value::Object(kinds) => {
                let mut d = Detect::ALL;
                for (code, on) in kinds {
                    let kind = Kind::ALL
                        .into_iter()
                        .find(|k| k.code() == code)
                        .ok_or_else(|| format!("policy.detect has an unknown kind {code}"))?;
                    let on = on.as_bool().ok_or_else(|| format!("policy.detect.{code} must be true or false"))?;
                    d.set(kind, on);
                }
                Ok(d)
            }
            _ => Err(format!(
                "policy.detect must be true, false or an object of kinds, not {}",
                crate::json::write::text(v)
            )),
        }
    }
}

/// One hit: `text[start..end]` is a credential of `kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Found {
    pub start: usize,
    pub end: usize,
    pub kind: Kind,
}

/// Every credential of the kinds in `on` in `text`, in no particular order. Linear in the
/// length of `text`; `work` counts the steps. (`scrub::detected` calls the two halves, as it
/// reuses the scan.)
#[cfg(test)]
pub fn detect(text: &str, on: Detect, work: &mut u64) -> Vec<Found> {
    if on.is_none() {
        return Vec::new();
    }
    *work += text.len() as u64;
    detect_scanned(text, on, scan(text), work)
}

/// `detect`, given the `scan` of `text` (the caller counts it in `work`): each scanner runs
/// only where the scan saw what it needs to find anything, so that a string with no
/// credential costs the scan alone (and no allocation).
pub fn detect_scanned(text: &str, on: Detect, seen: Scan, work: &mut u64) -> Vec<Found> {
    let mut out = Vec::new();
    if on.is_none() {
        return out;
    }
    if seen.has(Scan::TOKEN_PREFIX) {
        runs(text, on, &mut out, work);
    }
    if on.has(Kind::AwsSecretAccessKey) && seen.has(Scan::B64_40) {
        aws_secrets(text, &mut out, work);
    }
    if on.has(Kind::PrivateKey) && seen.has(Scan::PEM) {
        private_keys(text, &mut out, work);
    }
    if on.has(Kind::SlackWebhook) && seen.has(Scan::WEBHOOK) {
        slack_webhooks(text, &mut out, work);
    }
    out.retain(|f| on.has(f.kind));
    out
}

/// What one pass over a text saw that a scanner needs to find anything: a necessary
/// condition for each, never a sufficient one (the scanners then decide, as before).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scan(u8);

impl Scan {
    /// A token kind's or a JWT's prefix (`token`'s arms) where `runs` reads one: at the start
    /// of a run of token characters, or anywhere in a run that follows `%` or `\` (an escape
    /// `escaped` may skip).
    const TOKEN_PREFIX: u8 = 1;
    /// A run of exactly 40 base64 characters (`aws_secrets` takes no other).
    const B64_40: u8 = 2;
    const PEM: u8 = 4; // `-----BEGIN `
    const WEBHOOK: u8 = 8; // `hooks.slack.com/services/`
    const PEM_VIEW: u8 = 16; // `-----BEGIN`
    const WEBHOOK_VIEW: u8 = 32; // `hooks.slack.com`
    const AWS_VIEW: u8 = 64; // `AKIA`, `ASIA`, `ecret`, `ECRET`

    fn has(self, bit: u8) -> bool {
        self.0 & bit != 0
    }

    /// Could the text hold, once decoded, a credential of a kind with characters other than
    /// token ones (a PEM block, a webhook URL, an AWS secret key, found beside an id or a
    /// label)? The words looked for are those of the kinds whose characters an encoder escapes.
    pub fn needs_views(self, on: Detect) -> bool {
        (on.has(Kind::PrivateKey) && self.has(Scan::PEM_VIEW))
            || (on.has(Kind::SlackWebhook) && self.has(Scan::WEBHOOK_VIEW))
            || (on.has(Kind::AwsSecretAccessKey) && self.has(Scan::AWS_VIEW))
    }

    /// Might `detect_scanned` find anything, or the views be read?
    pub fn any(self) -> bool {
        self.0 != 0
    }
}

/// One pass over `text`: a table lookup per byte, and a few byte comparisons where a byte can
/// start a token prefix at a run's start (`PREFIX`) or one of the other words (`WORD`).
/// Hand-written: one loop costs less than the `str::find` per word it replaces (each builds a
/// searcher, per string), measured. An indexed loop, and a word looked at only where its
/// second byte follows (`word_may_start`): at opt-level "z" the slice iterator, the sub-slice
/// and `word` are calls, and the loop was most of what a string with nothing to find cost
/// (measured: a quarter of a pass-through call).
pub fn scan(text: &str) -> Scan {
    let b = text.as_bytes();
    let mut seen = 0u8;
    let mut b64_run = 0usize;
    let mut after_escape = false;
    let mut prev = 0u8;
    let mut i = 0;
    while i < b.len() {
        let c = CLASS[usize::from(b[i])];
        if c & B64 != 0 {
            b64_run += 1;
        } else {
            seen |= if b64_run == 40 { Scan::B64_40 } else { 0 };
            b64_run = 0;
        }
        let run_start = c & TOKEN != 0 && prev & TOKEN == 0;
        if run_start {
            after_escape = i > 0 && matches!(b[i - 1], b'%' | b'\\');
        }
        if c & PREFIX != 0 && (run_start || after_escape) && token_prefix(&b[i..]) {
            seen |= Scan::TOKEN_PREFIX;
        }
        if c & WORD != 0 && word_may_start(b[i], b.get(i + 1).copied()) {
            seen |= word(&b[i..]);
        }
        prev = c;
        i += 1;
        // Inside a run that no escape opened, an alphanumeric byte that starts no word only
        // lengthens the base64 run (a prefix is looked for at the run's start): most of a text.
        if c & TOKEN != 0 && !after_escape {
            while i < b.len() && CLASS[usize::from(b[i])] & !PREFIX == TOKEN | B64 {
                b64_run += 1;
                i += 1;
            }
        }
    }
    seen |= if b64_run == 40 { Scan::B64_40 } else { 0 };
    Scan(seen)
}

/// Can one of `word`'s words start with `first` then `second`? (Every arm of `word` begins
/// with one of these pairs.)
fn word_may_start(first: u8, second: Option<u8>) -> bool {
    matches!(
        (first, second),
        (b'A', Some(b'K' | b'S')) | (b'e', Some(b'c')) | (b'E', Some(b'C')) | (b'-', Some(b'-')) | (b'h', Some(b'o'))
    )
}

/// Does `rest` start with one of the prefixes `token` and the JWT arm of `runs` dispatch on,
/// as far as they check it?
fn token_prefix(rest: &[u8]) -> bool {
    matches!(
        rest,
        [b'A', b'K' | b'S' | b'I', ..] if starts(rest, b"AKIA") || starts(rest, b"ASIA") || starts(rest, b"AIza")
    ) || matches!(
        rest,
        [b'g', b'h', b'p' | b'o' | b'u' | b's' | b'r', b'_', ..]
            | [b'n', b'p', b'm', b'_', ..]
            | [b'x', b'o', b'x', ..]
            | [b's' | b'r', b'k', b'_', ..]
            | [b's', b'k', b'-', ..]
            | [b'e', b'y', b'J', ..]
    ) || starts(rest, b"github_pat_")
        || starts(rest, b"glpat-")
}

/// The words of the scanners that look for more than token characters, and of `needs_views`,
/// that start at `rest[0]`. Each is compared only where its first two bytes stand.
fn word(rest: &[u8]) -> u8 {
    match rest {
        [b'A', b'K' | b'S', b'I', b'A', ..] => Scan::AWS_VIEW,
        [b'e', b'c', ..] if starts(rest, b"ecret") => Scan::AWS_VIEW,
        [b'E', b'C', ..] if starts(rest, b"ECRET") => Scan::AWS_VIEW,
        [b'-', b'-', ..] if starts(rest, b"-----BEGIN") => {
            Scan::PEM_VIEW | if rest.get(10) == Some(&b' ') { Scan::PEM } else { 0 }
        }
        [b'h', b'o', ..] if starts(rest, b"hooks.slack.com") => {
            Scan::WEBHOOK_VIEW | if starts(rest, b"hooks.slack.com/services/") { Scan::WEBHOOK } else { 0 }
        }
        _ => 0,
    }
}

fn starts(rest: &[u8], word: &[u8]) -> bool {
    rest.get(..word.len()) == Some(word)
}

const TOKEN: u8 = 1;
const B64: u8 = 2;
/// The first byte of a token prefix (`token_prefix`).
const PREFIX: u8 = 4;
/// The first byte of another word (`word`).
const WORD: u8 = 8;

/// Each byte's classes: 256 bytes of table, read once per byte by `scan` and the scanners.
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 256 {
        let c = i as u8;
        let alnum = c.is_ascii_alphanumeric();
        t[i] = if alnum || c == b'_' || c == b'-' { TOKEN } else { 0 }
            | if alnum || c == b'+' || c == b'/' { B64 } else { 0 }
            | if matches!(c, b'A' | b'g' | b'n' | b'x' | b's' | b'r' | b'e') { PREFIX } else { 0 }
            | if matches!(c, b'A' | b'e' | b'E' | b'-' | b'h') { WORD } else { 0 };
        i += 1;
    }
    t
};

fn is_token(b: u8) -> bool {
    CLASS[b as usize] & TOKEN != 0
}

fn is_b64(b: u8) -> bool {
    CLASS[b as usize] & B64 != 0
}

fn all(s: &[u8], f: impl Fn(u8) -> bool) -> bool {
    s.iter().all(|&b| f(b))
}

/// Is every byte of `s` ASCII alphanumeric? Those are the bytes both token and base64
/// characters: one table lookup each, in an indexed loop (at opt-level "z" `all`'s closure
/// is a call per byte).
fn all_alnum(s: &[u8]) -> bool {
    let mut i = 0;
    while i < s.len() && CLASS[usize::from(s[i])] & (TOKEN | B64) == TOKEN | B64 {
        i += 1;
    }
    i == s.len()
}

/// Is `s` (the random part of a key) plausibly random, not a placeholder (`xxxx…`,
/// `abcdefgh…`)? At least two of upper case, lower case and digits, and many distinct
/// characters. Random base62 of 20 characters or more fails this with odds below 10^-7.
fn random(s: &[u8]) -> bool {
    random_set(&byte_set(s), s.len())
}

/// `random` of a text of `len` bytes whose distinct bytes are `bytes` (`byte_set`): the
/// classes seen are read from the set (a class test per byte was a third of `random`, stop 31).
fn random_set(bytes: &[u64; 4], len: usize) -> bool {
    let distinct: u32 = bytes.iter().map(|w| w.count_ones()).sum();
    let classes =
        u32::from(bytes[0] & DIGITS != 0) + u32::from(bytes[1] & UPPER != 0) + u32::from(bytes[1] & LOWER != 0);
    classes >= 2 && distinct as usize >= (len / 2).min(12)
}

/// `all_alnum` of the text whose distinct bytes are `bytes`.
fn alnum_set(bytes: &[u64; 4]) -> bool {
    bytes[0] & !DIGITS == 0 && bytes[1] & !(UPPER | LOWER) == 0 && bytes[2] | bytes[3] == 0
}

/// The distinct bytes of `s`, a bit each in a 256-bit set (cheaper to clear per call than a
/// table), in one indexed pass (at opt-level "z" a fold's closure is a call per byte;
/// measured: most of what a Stripe-shaped placeholder cost, read in every record of a
/// pass-through result).
fn byte_set(s: &[u8]) -> [u64; 4] {
    let mut bytes = [0u64; 4];
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        bytes[usize::from(c >> 6)] |= 1 << (c & 63);
        i += 1;
    }
    bytes
}

/// The bits of `0`-`9` in the first word of `random`'s byte set, and of `A`-`Z` and `a`-`z`
/// in the second (bytes 64 to 127).
const DIGITS: u64 = ((1 << 10) - 1) << b'0';
const UPPER: u64 = ((1 << 26) - 1) << (b'A' - 64);
const LOWER: u64 = ((1 << 26) - 1) << (b'a' - 64);

/// How many distinct bytes `s` holds.
fn distinct(s: &[u8]) -> usize {
    byte_set(s).iter().map(|w| w.count_ones() as usize).sum()
}

/// The maximal runs of token characters, each checked at its start. A JWT continues over two
/// dots into the next runs; the scan then resumes after it.
fn runs(text: &str, on: Detect, out: &mut Vec<Found>, work: &mut u64) {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !is_token(b[i]) {
            i += 1;
            *work += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_token(b[i]) {
            i += 1;
        }
        *work += (i - start) as u64;
        // A run that starts inside an escape (`%22`, `\n`, `\u0022`) holds the escape's own
        // characters: the credential, if any, starts after them (unless the whole run is one:
        // `C:\npm_…` is a path before an npm token).
        let start = if token(&b[start..i]).is_some() { start } else { start + escaped(b, start, i) };
        *work += 2 * (i - start) as u64;
        let run = &b[start..i];
        let kind = match run {
            [b'e', b'y', b'J', ..] if on.has(Kind::Jwt) => {
                if let Some(end) = jwt(b, start, i, work) {
                    out.push(Found { start, end, kind: Kind::Jwt });
                    i = end;
                }
                continue;
            }
            _ => token(run),
        };
        if let Some(kind) = kind {
            out.push(Found { start, end: i, kind });
        }
        *work += run.len() as u64; // validation reads the run once more, at most
    }
}

/// How many of the first characters of the run `b[start..end]` belong to an escape that
/// begins just before it: a percent escape (`%22`, or `%2522` escaped twice or more), or, after
/// a backslash, a JSON or C escape (`\n`, `\t`, `\r`, `\b`, `\f`, `\u0022`, `\x22`), or the
/// eight-digit `\U0001F511` Go's `QuoteToASCII` and Python's `ascii()` write past the BMP.
fn escaped(b: &[u8], start: usize, end: usize) -> usize {
    let run = &b[start..end];
    let hex = |from: usize, n: usize| run.len() > from + n && all(&run[from..from + n], |c| c.is_ascii_hexdigit());
    match start.checked_sub(1).map(|p| b[p]) {
        Some(b'%') => {
            // `%2522` is `%22` escaped again: each `25` pair is one more level.
            let nested = 2 * run.chunks_exact(2).take_while(|pair| *pair == b"25").count();
            if hex(nested, 2) {
                nested + 2
            } else {
                0
            }
        }
        Some(b'\\') => match run[0] {
            b'n' | b't' | b'r' | b'b' | b'f' if run.len() > 1 => 1,
            b'u' if hex(1, 4) => 5,
            b'x' if hex(1, 2) => 3,
            b'U' if hex(1, 8) => 9,
            _ => 0,
        },
        _ => 0,
    }
}

/// The kind of one whole run of token characters, if it is a credential.
fn token(run: &[u8]) -> Option<Kind> {
    let rest = |prefix: &[u8]| run.strip_prefix(prefix);
    match run.get(..3)? {
        b"AKI" | b"ASI" if run.len() == 20 && run[3] == b'A' => {
            let id = &run[4..];
            let ok = all(id, |c| c.is_ascii_uppercase() || (b'2'..=b'7').contains(&c))
                && !id.ends_with(b"EXAMPLE") // AWS's own documentation example
                && distinct(id) >= 8;
            ok.then_some(Kind::AwsAccessKeyId)
        }
        b"ghp" | b"gho" | b"ghu" | b"ghs" | b"ghr" if run.len() == 40 && run[3] == b'_' => {
            crc_token(&run[4..]).then_some(Kind::GithubToken)
        }
        b"git" => {
            // Fine-grained: 22 characters, `_`, 59 characters.
            let r = rest(b"github_pat_")?;
            let ok = r.len() == 82 && r[22] == b'_' && all_alnum(&r[..22]) && all_alnum(&r[23..]) && random(&r[23..]);
            ok.then_some(Kind::GithubToken)
        }
        b"npm" => {
            let r = rest(b"npm_")?;
            (r.len() == 36 && crc_token(r)).then_some(Kind::NpmToken)
        }
        b"glp" => {
            let r = rest(b"glpat-")?;
            ((20..=64).contains(&r.len()) && random(r)).then_some(Kind::GitlabToken)
        }
        b"xox" => slack(run).then_some(Kind::SlackToken),
        b"sk_" | b"rk_" => {
            let r = rest(&run[..3]).and_then(|r| r.strip_prefix(b"live_").or_else(|| r.strip_prefix(b"test_")))?;
            // One pass for both questions: the set of its bytes answers each.
            let key = (24..=247).contains(&r.len()) && {
                let set = byte_set(r);
                alnum_set(&set) && random_set(&set, r.len())
            };
            key.then_some(Kind::StripeKey)
        }
        b"AIz" => {
            let r = rest(b"AIza")?;
            (r.len() == 35 && random(r)).then_some(Kind::GoogleApiKey)
        }
        b"sk-" => match rest(b"sk-ant-") {
            Some(r) => anthropic(r).then_some(Kind::AnthropicApiKey),
            None => openai(run).then_some(Kind::OpenaiApiKey),
        },
        _ => None,
    }
}

/// 30 random base62 characters and the CRC32 of them in 6 base62 digits (GitHub's and npm's
/// formats).
fn crc_token(r: &[u8]) -> bool {
    if r.len() != 36 || !all(r, |c| c.is_ascii_alphanumeric()) {
        return false;
    }
    let mut n = crc32(&r[..30]);
    let mut digits = [b'0'; 6];
    for d in digits.iter_mut().rev() {
        *d = BASE62[(n % 62) as usize];
        n /= 62;
    }
    digits == r[30..]
}

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// CRC-32 (IEEE), bit by bit: it runs on 30 bytes per candidate, and a table would cost 1 KiB.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

/// `xoxb-` (and `p`, `a`, `r`, `s`): digit groups, then a random last group, all `-`-separated.
fn slack(run: &[u8]) -> bool {
    if !matches!(run.get(3), Some(b'b' | b'p' | b'a' | b'r' | b's')) || run.get(4) != Some(&b'-') {
        return false;
    }
    let body = &run[5..];
    let groups: Vec<&[u8]> = body.split(|&c| c == b'-').collect();
    let last = groups[groups.len() - 1];
    groups.len() >= 3
        && (25..=250).contains(&body.len())
        && !groups[0].is_empty()
        && all(groups[0], |c| c.is_ascii_digit())
        && groups.iter().all(|g| !g.is_empty() && all(g, |c| c.is_ascii_alphanumeric()))
        && last.len() >= 10
        && random(last)
}

/// `sk-ant-<purpose><2 digits>-` and 93 characters ending in `AA`.
fn anthropic(r: &[u8]) -> bool {
    let purpose = r.iter().take_while(|c| c.is_ascii_lowercase()).count();
    let Some(after) = r.get(purpose..) else { return false };
    let ok_version = after.len() > 3 && after[..2].iter().all(u8::is_ascii_digit) && after[2] == b'-';
    ok_version && purpose > 0 && {
        let key = &after[3..];
        key.len() == 95 && key.ends_with(b"AA") && random(key)
    }
}

/// `sk-` (optionally `proj-`, `svcacct-`, `admin-`) with OpenAI's marker `T3BlbkFJ` ("OpenAI"
/// in base64) inside, random on both sides.
fn openai(run: &[u8]) -> bool {
    const MARK: &[u8] = b"T3BlbkFJ";
    if !(40..=300).contains(&run.len()) {
        return false;
    }
    let Some(at) = run.windows(MARK.len()).position(|w| w == MARK) else { return false };
    let (before, after) = (&run[3..at], &run[at + MARK.len()..]);
    before.len() >= 16 && after.len() >= 16 && random(before) && random(after)
}

/// A JWT starting at `start` whose first part ends at `end`: three base64url parts with two
/// dots, a header that is a JSON object with `alg`, a payload that is a JSON object, and a
/// signature; or a JWE in compact form ([`jwe`]). Returns where it ends. Whatever stands
/// around it: a JWE's second part is an encrypted key, never a JSON object, so a JSON payload
/// makes three parts a JWT however the text goes on (review s34: one written `….sig.json`,
/// after `x.` or before another JWT was missed, and reached the agent).
fn jwt(b: &[u8], start: usize, end: usize, work: &mut u64) -> Option<usize> {
    let part = |from: usize| from + b[from..].iter().take_while(|&&c| is_token(c)).count();
    let p1 = end;
    if b.get(p1) != Some(&b'.') {
        return None;
    }
    let p2 = part(p1 + 1);
    if b.get(p2) != Some(&b'.') {
        return None;
    }
    let p3 = part(p2 + 1);
    *work += (p3 - end) as u64;
    let jwe = jwe(b, p1, p2, p3, work);
    if jwe.is_none() && (p2 == p1 + 1 || p3 - (p2 + 1) < 16) {
        return None;
    }
    // The crate's own parser (under the default limits), not a second instance of serde's.
    let object = |from: usize, to: usize| -> Option<serde_json::Map<String, Value>> {
        let text = String::from_utf8(base64url(&b[from..to])?).ok()?;
        match crate::json::parse_limited(&text, &crate::Limits::default()) {
            Ok(Value::Object(m)) => Some(m),
            _ => None,
        }
    };
    *work += 2 * (p2 - start) as u64;
    let header = object(start, p1)?;
    header.get("alg")?.as_str()?;
    if let Some(end) = jwe.filter(|_| header.get("enc").is_some_and(Value::is_string)) {
        return Some(end);
    }
    if p2 == p1 + 1 || p3 - (p2 + 1) < 16 {
        return None;
    }
    object(p1 + 1, p2)?;
    Some(p3)
}

/// The end of a JWE in compact form (RFC 7516) whose first three parts end at `p1`, `p2`
/// (the encrypted key, empty for direct encryption) and `p3` (the IV): two more parts, the
/// ciphertext and the tag, each part base64url of a plausible length (an IV and a tag of 16
/// characters or more, a ciphertext of 2 or more). Its header (read by the caller) must also
/// name an `enc`. An encrypted token is a bearer credential like a signed one (stop 36: a
/// JWE reached the agent, none of its parts being a JSON payload).
fn jwe(b: &[u8], p1: usize, p2: usize, p3: usize, work: &mut u64) -> Option<usize> {
    let part = |from: usize| from + b[from..].iter().take_while(|&&c| is_token(c)).count();
    if b.get(p3) != Some(&b'.') {
        return None;
    }
    let p4 = part(p3 + 1);
    if b.get(p4) != Some(&b'.') {
        return None;
    }
    let p5 = part(p4 + 1);
    *work += (p5 - p3) as u64;
    let b64 = |from: usize, to: usize, min: usize| to - from >= min && (to - from) % 4 != 1;
    let key = p2 == p1 + 1 || b64(p1 + 1, p2, 2);
    (key && b64(p2 + 1, p3, 16) && b64(p3 + 1, p4, 2) && b64(p4 + 1, p5, 16)).then_some(p5)
}

/// Unpadded base64url, decoded; `None` if it is not.
fn base64url(s: &[u8]) -> Option<Vec<u8>> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'-' => Some(62),
        b'_' => Some(63),
        _ => None,
    };
    if s.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for &c in s {
        acc = (acc << 6) | u32::from(value(c)?);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// How far beside an access key id a secret key may stand.
const AWS_NEAR: usize = 256;

/// AWS secret access keys: a run of exactly 40 base64 characters (mixed case, not hex), found
/// only after a label that names one (`aws_secret_access_key = `, `"SecretAccessKey": "`) or
/// within `AWS_NEAR` bytes of an access key id found in the same text. 40 characters of base64
/// alone would match too much.
fn aws_secrets(text: &str, out: &mut Vec<Found>, work: &mut u64) {
    let b = text.as_bytes();
    let ids: Vec<(usize, usize)> =
        out.iter().filter(|f| f.kind == Kind::AwsAccessKeyId).map(|f| (f.start, f.end)).collect();
    let mut next_id = 0;
    let mut i = 0;
    while i < b.len() {
        *work += 1;
        if !is_b64(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_b64(b[i]) {
            i += 1;
        }
        *work += (i - start) as u64;
        let run = &b[start..i];
        let bounded = (start == 0 || !matches!(b[start - 1], b'_' | b'-'))
            && !b.get(i).is_some_and(|&c| matches!(c, b'=' | b'_' | b'-'));
        if run.len() != 40 || !bounded || run.ends_with(b"EXAMPLEKEY") || !secret_like(run) {
            continue;
        }
        while ids.get(next_id).is_some_and(|&(_, e)| e + AWS_NEAR < start) {
            next_id += 1;
        }
        let near = ids.get(next_id).is_some_and(|&(s, _)| s <= i + AWS_NEAR);
        if near || labelled(&b[..start], work) {
            out.push(Found { start, end: i, kind: Kind::AwsSecretAccessKey });
        }
    }
}

fn secret_like(run: &[u8]) -> bool {
    run.iter().any(u8::is_ascii_uppercase)
        && run.iter().any(u8::is_ascii_lowercase)
        && !all(run, |c| c.is_ascii_hexdigit())
        && distinct(run) >= 16
}

/// Does `before` end with a label naming an AWS secret key, then separators (`=`, `:`, quotes,
/// spaces)? Reads at most 80 bytes back.
fn labelled(before: &[u8], work: &mut u64) -> bool {
    let from = before.len().saturating_sub(80);
    let tail = &before[from..];
    let seps = tail.iter().rev().take_while(|c| matches!(c, b' ' | b'\t' | b'"' | b'\'' | b'`' | b':' | b'=')).count();
    let word = &tail[..tail.len() - seps];
    let name_len = word.iter().rev().take_while(|c| is_token(**c) || **c == b'.').count();
    *work += tail.len() as u64;
    let name: Vec<u8> = word[word.len() - name_len..]
        .iter()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(u8::to_ascii_lowercase)
        .collect();
    seps > 0 && (name.ends_with(b"secretaccesskey") || name.ends_with(b"awssecretkey"))
}

/// PEM private key blocks: `-----BEGIN <...>PRIVATE KEY-----`, base64 lines (and the
/// `Proc-Type`/`DEK-Info` headers of an encrypted key; `<br>` for line breaks), `-----END <same>-----`. The body must
/// hold 64 base64 characters at least, so that a documentation stub (`...`) is no key.
fn private_keys(text: &str, out: &mut Vec<Found>, work: &mut u64) {
    const BEGIN: &str = "-----BEGIN ";
    const DASHES: &[u8] = b"-----";
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(k) = text[from..].find(BEGIN) {
        let start = from + k;
        let label_at = start + BEGIN.len();
        let label_len = b[label_at..].iter().take(40).take_while(|c| c.is_ascii_uppercase() || **c == b' ').count();
        let label = &b[label_at..label_at + label_len];
        *work += (label_at + label_len - from) as u64;
        from = label_at;
        if !label.ends_with(b"PRIVATE KEY") || !b[label_at + label_len..].starts_with(DASHES) {
            continue;
        }
        // The body, up to the first character that is neither base64 nor white space.
        let mut i = label_at + label_len + DASHES.len();
        let mut chars = 0;
        let mut line_start = true;
        while i < b.len() {
            let c = b[i];
            if line_start && (b[i..].starts_with(b"Proc-Type:") || b[i..].starts_with(b"DEK-Info:")) {
                i += b[i..].iter().take_while(|&&c| c != b'\n').count();
                continue;
            }
            // A page that shows the key in HTML breaks its lines with `<br>`.
            if let Some(br) = [b"<br>".as_slice(), b"<br/>", b"<br />"].iter().find(|t| b[i..].starts_with(t)) {
                i += br.len();
                line_start = true;
                continue;
            }
            line_start = c == b'\n';
            if is_b64(c) || c == b'=' {
                chars += 1;
            } else if !c.is_ascii_whitespace() {
                break;
            }
            i += 1;
        }
        *work += (i - from) as u64;
        from = i.max(from);
        let end = [b"-----END ".as_slice(), label, DASHES];
        let mut at = i;
        let closed = end.iter().all(|part| {
            let ok = b[at..].starts_with(part);
            at += part.len();
            ok
        });
        if closed && chars >= 64 {
            out.push(Found { start, end: at, kind: Kind::PrivateKey });
            from = at;
        }
    }
}

/// `https://hooks.slack.com/services/T…/B…/<24 characters>`.
fn slack_webhooks(text: &str, out: &mut Vec<Found>, work: &mut u64) {
    const HOST: &str = "hooks.slack.com/services/";
    let b = text.as_bytes();
    let mut from = 0;
    while let Some(k) = text[from..].find(HOST) {
        let at = from + k;
        *work += (at + HOST.len() - from) as u64;
        from = at + HOST.len();
        let mut parts = [0usize; 3];
        let mut i = from;
        for (n, part) in parts.iter_mut().enumerate() {
            let len = b[i..].iter().take(64).take_while(|c| c.is_ascii_alphanumeric()).count();
            *part = len;
            i += len;
            if n < 2 && b.get(i) != Some(&b'/') {
                break;
            }
            i += usize::from(n < 2);
        }
        *work += (i - from) as u64;
        let [t, bb, secret] = parts;
        // `T` and `B` ids of 8 or more upper-case letters and digits, then the secret part.
        if t < 9 || bb < 9 || secret != 24 || b[from] != b'T' || b[from + t + 1] != b'B' {
            continue;
        }
        let ids = all(&b[from..from + t + 1 + bb], |c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == b'/');
        if ids && !b.get(i).is_some_and(|&c| is_token(c)) && random(&b[i - secret..i]) {
            let start =
                ["https://", "http://"].iter().find(|s| b[..at].ends_with(s.as_bytes())).map_or(at, |s| at - s.len());
            out.push(Found { start, end: i, kind: Kind::SlackWebhook });
            from = i;
        }
    }
}

/// The algorithm before `scan` (every scanner on every text, and `str::contains` for
/// `needs_views`): the oracle the property tests compare `detect` and `needs_views` with.
#[cfg(test)]
pub(crate) mod oracle {
    use super::*;

    pub(crate) fn detect(text: &str, on: Detect, work: &mut u64) -> Vec<Found> {
        let mut out = Vec::new();
        if on.is_none() {
            return out;
        }
        runs(text, on, &mut out, work);
        if on.has(Kind::AwsSecretAccessKey) {
            aws_secrets(text, &mut out, work);
        }
        if on.has(Kind::PrivateKey) {
            private_keys(text, &mut out, work);
        }
        if on.has(Kind::SlackWebhook) {
            slack_webhooks(text, &mut out, work);
        }
        out.retain(|f| on.has(f.kind));
        out
    }

    /// `scan` before it became an indexed loop (stop 26): what the property test holds it to
    /// (proptest is native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn scan(text: &str) -> Scan {
        let b = text.as_bytes();
        let mut seen = 0u8;
        let mut b64_run = 0usize;
        let mut after_escape = false;
        let mut prev = 0u8;
        for (i, &byte) in b.iter().enumerate() {
            let c = CLASS[byte as usize];
            if c & B64 != 0 {
                b64_run += 1;
            } else {
                seen |= if b64_run == 40 { Scan::B64_40 } else { 0 };
                b64_run = 0;
            }
            let run_start = c & TOKEN != 0 && prev & TOKEN == 0;
            if run_start {
                after_escape = i > 0 && matches!(b[i - 1], b'%' | b'\\');
            }
            if c & PREFIX != 0 && (run_start || after_escape) && token_prefix(&b[i..]) {
                seen |= Scan::TOKEN_PREFIX;
            }
            if c & WORD != 0 {
                seen |= word(&b[i..]);
            }
            prev = c;
        }
        seen |= if b64_run == 40 { Scan::B64_40 } else { 0 };
        Scan(seen)
    }

    pub(crate) fn needs_views(text: &str, on: Detect) -> bool {
        let aws = on.has(Kind::AwsSecretAccessKey)
            && (text.contains("AKIA") || text.contains("ASIA") || text.contains("ecret") || text.contains("ECRET"));
        (on.has(Kind::PrivateKey) && text.contains("-----BEGIN"))
            || (on.has(Kind::SlackWebhook) && text.contains("hooks.slack.com"))
            || aws
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `random` reads the classes from its byte set, and the Stripe arm whether all bytes are
    /// alphanumeric: the same answers as testing each byte, on seeded strings of every byte
    /// value and of the classes' edges.
    #[test]
    fn random_reads_classes_from_its_byte_set() {
        let by_bytes = |s: &[u8]| {
            let classes = [u8::is_ascii_uppercase, u8::is_ascii_lowercase, u8::is_ascii_digit];
            let seen = classes.iter().filter(|f| s.iter().any(f)).count();
            seen >= 2 && distinct(s) >= (s.len() / 2).min(12)
        };
        let edges = *b"/09:@AZ[`az{~_-+\x00\x7f\x80\xff";
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (mut yes, mut total) = (0, 0);
        for _ in 0..20_000 {
            let len = (next() % 40) as usize;
            let narrow = next() % 3;
            let s: Vec<u8> = (0..len)
                .map(|_| match narrow {
                    0 => edges[(next() % edges.len() as u64) as usize],
                    1 => (next() % 256) as u8,
                    _ => b"aB3"[(next() % 3) as usize],
                })
                .collect();
            assert_eq!(random(&s), by_bytes(&s), "{s:?}");
            assert_eq!(alnum_set(&byte_set(&s)), all_alnum(&s), "{s:?}");
            yes += usize::from(by_bytes(&s));
            total += 1;
        }
        assert!(yes > 1000 && yes < total - 1000, "both answers: {yes} of {total}");
    }

    /// Builds a GitHub- or npm-style token with a valid checksum from 30 random characters.
    pub(crate) fn with_crc(prefix: &str, random: &str) -> String {
        let mut n = crc32(random.as_bytes());
        let mut digits = [b'0'; 6];
        for d in digits.iter_mut().rev() {
            *d = BASE62[(n % 62) as usize];
            n /= 62;
        }
        format!("{prefix}{random}{}", std::str::from_utf8(&digits).unwrap())
    }

    /// `n` base62 characters, pseudo-random from `seed`.
    fn chars(n: usize, seed: u64) -> String {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                BASE62[(x % 62) as usize] as char
            })
            .collect()
    }

    fn kinds(text: &str) -> Vec<(Kind, String)> {
        let mut work = 0;
        let mut found = detect(text, Detect::ALL, &mut work);
        found.sort_by_key(|f| f.start);
        found.into_iter().map(|f| (f.kind, text[f.start..f.end].to_string())).collect()
    }

    fn caught(kind: Kind, secret: &str) {
        for text in [secret.to_string(), format!("key: {secret}."), format!("\"{secret}\""), format!("x={secret}&y")] {
            assert_eq!(kinds(&text), [(kind, secret.to_string())], "{text}");
        }
    }

    fn missed(text: &str) {
        assert_eq!(kinds(text), [], "{text}");
    }

    /// A token written right after an escape (no delimiter between them) is found without the
    /// escape's letters and digits: each escape a tool's quoting writes, over seeded tokens
    /// (helper C, stop 36: after `\U0001F511` the run began at `U` and the token was missed).
    #[test]
    fn a_token_right_after_an_escape_is_found() {
        let escapes = ["\\n", "\\t", "\\u0022", "\\u00e9", "\\x22", "\\U0001F511", "\\U000000e9", "%22", "%2522"];
        for seed in 0..40 {
            let token = with_crc("ghp_", &chars(30, seed));
            for escape in escapes {
                let text = format!("{escape}{token}");
                assert_eq!(kinds(&text), [(Kind::GithubToken, token.clone())], "{text}");
            }
        }
    }

    /// Every kind the detectors claim to find, seeded, embedded in prose at every offset and
    /// between every delimiter a tool writes around a value: found once, with its exact span,
    /// and as the oracle (every scanner on the text, no prefilter) finds it. The prefilters made
    /// cheaper in stop 31 (`random` over a byte set, the Stripe arm in one pass) and `scan` must
    /// not lose a credential to what stands next to it (review s32).
    #[test]
    fn every_kind_is_found_at_every_offset_between_every_delimiter() {
        let body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\n";
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IlRlc3QifQ.";
        let filler = "Your key is here: ";
        let (mut cases, mut seed) = (0, 1u64);
        for round in 0..6u64 {
            let mut r = |n: usize| {
                seed += 1;
                chars(n, seed * 7919 + round)
            };
            let samples = [
                (Kind::GithubToken, with_crc("ghp_", &r(30))),
                (Kind::NpmToken, with_crc("npm_", &r(30))),
                (Kind::GitlabToken, format!("glpat-{}", r(20))),
                (Kind::StripeKey, format!("sk_live_{}", r(24 + round as usize))),
                (Kind::StripeKey, format!("rk_test_{}", r(24))),
                (Kind::GoogleApiKey, format!("AIza{}", r(35))),
                (Kind::AnthropicApiKey, format!("sk-ant-api03-{}AA", r(93))),
                (Kind::OpenaiApiKey, format!("sk-proj-{}T3BlbkFJ{}", r(20), r(20))),
                (Kind::SlackToken, format!("xoxb-2781934562-8273619245131-{}", r(24))),
                (Kind::Jwt, format!("{jwt}{}", r(36))),
                (Kind::SlackWebhook, format!("https://hooks.slack.com/services/T024BE7LD/B08KQ3V2N1M/{}", r(24))),
                (Kind::PrivateKey, format!("-----BEGIN PRIVATE KEY-----\n{body}{}\n-----END PRIVATE KEY-----", r(64))),
                (Kind::AwsAccessKeyId, "AKIA2OGYBAH6STMMNXNN".to_string()),
            ];
            for (kind, secret) in &samples {
                assert_eq!(kinds(secret), [(*kind, secret.clone())], "alone");
                for (open, close) in [
                    (" ", " "),
                    ("\"", "\""),
                    ("'", "'"),
                    ("<td>", "</td>"),
                    ("(", ")"),
                    ("[", "]"),
                    ("{", "}"),
                    ("=", "&"),
                    (":", ","),
                    ("\t", "\n"),
                    ("`", "`"),
                    ("|", ";"),
                    ("\n", ". "),
                ] {
                    for at in 0..=filler.len() {
                        let text = format!("{}{open}{secret}{close}{}", &filler[..at], &filler[at..]);
                        let found = kinds(&text);
                        assert_eq!(found, [(*kind, secret.clone())], "{text}");
                        let mut w = 0;
                        let slow: Vec<_> = oracle::detect(&text, Detect::ALL, &mut w)
                            .into_iter()
                            .map(|f| (f.start, f.end, f.kind))
                            .collect();
                        let fast: Vec<_> =
                            detect(&text, Detect::ALL, &mut w).into_iter().map(|f| (f.start, f.end, f.kind)).collect();
                        assert_eq!(fast, slow, "{text}");
                        cases += 1;
                    }
                }
            }
        }
        println!("detect: {cases} embedded credentials");
        assert!(cases > 10_000, "{cases}");
    }

    #[test]
    fn crc32_is_the_ieee_one() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b""), 0);
    }

    const R30: &str = "Zx8Kq2LmP4vN7tRb1YcW9sHd3FgJ0a";

    #[test]
    fn github_and_npm_tokens_need_their_checksum() {
        for p in ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"] {
            caught(Kind::GithubToken, &with_crc(p, R30));
        }
        caught(Kind::NpmToken, &with_crc("npm_", R30));
        let good = with_crc("ghp_", R30);
        let mut bad = good.clone().into_bytes();
        bad[10] = if bad[10] == b'a' { b'b' } else { b'a' };
        missed(&String::from_utf8(bad).unwrap());
        missed(&good[..39]);
        missed(&format!("{good}x"));
        missed(&format!("x{good}"));
        missed(&format!("_{good}"));
        missed(&with_crc("ghx_", R30));
        missed("ghp_abcdefghijklmnopqrstuvwxyz0123456789");
        let fine = format!("github_pat_{}_{}", chars(22, 1), chars(59, 2));
        caught(Kind::GithubToken, &fine);
        missed(&fine[..fine.len() - 1]);
    }

    #[test]
    fn aws_access_key_ids_and_secret_keys() {
        let id = "AKIA2OGYBAH6STMMNXNN";
        caught(Kind::AwsAccessKeyId, id);
        caught(Kind::AwsAccessKeyId, "ASIAY34FZKBOKMUTVV7A");
        missed("AKIAIOSFODNN7EXAMPLE");
        missed("AKIA2OGYBAH6STMMNXN1"); // 1 is not base32
        missed("AKIA2OGYBAH6STMMNXNNA");
        missed("AKIAXXXXXXXXXXXXXXXX");
        let secret = "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";
        assert_eq!(kinds(&format!("aws_secret_access_key = {secret}")), [(Kind::AwsSecretAccessKey, secret.into())]);
        assert_eq!(
            kinds(&format!("{{\"SecretAccessKey\": \"{secret}\"}}")),
            [(Kind::AwsSecretAccessKey, secret.into())]
        );
        assert_eq!(
            kinds(&format!("id {id} secret {secret}")),
            [(Kind::AwsAccessKeyId, id.into()), (Kind::AwsSecretAccessKey, secret.into())]
        );
        missed(&format!("commit {secret}"));
        missed("aws_secret_access_key = da39a3ee5e6b4b0d3255bfef95601890afd80709"); // a SHA-1
        missed("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
        missed(&format!("aws_secret_access_key = {secret}x"));
    }

    #[test]
    fn token_kinds_with_structure() {
        caught(Kind::GitlabToken, "glpat-Xk3v9QmZ2pLr8sTw1Ybn");
        missed("glpat-xxxxxxxxxxxxxxxxxxxx");
        missed("glpat-Xk3v9QmZ2pL");
        caught(Kind::SlackToken, "xoxb-2781934562-8273619245131-Gh7kPq2Zx9LmRt4VbN8cWs1Y");
        caught(Kind::SlackToken, "xoxp-2781934562-2781934563-8273619245131-9f8e7d6c5b4a39281706f5e4d3c2b1a0");
        missed("xoxb-1234567890-abcdef");
        missed("xoxb-not-a-token-at-all-really-no");
        caught(Kind::StripeKey, "sk_live_51HqLyjWDarjtT1zdp7dcXk3v9Q");
        caught(Kind::StripeKey, "rk_test_4eC39HqLyjWDarjtT1zdp7dc");
        missed("sk_live_abcdefghijklmnopqrstuvwx");
        missed("sk_live_4eC39HqLyjWDarjtT1zd");
        missed("pk_live_4eC39HqLyjWDarjtT1zdp7dc");
        let google = format!("AIza{}", chars(35, 3));
        caught(Kind::GoogleApiKey, &google);
        missed(&google[..38]);
        missed(&format!("{google}4"));
        let anthropic = format!("sk-ant-api03-{}AA", chars(93, 4));
        caught(Kind::AnthropicApiKey, &anthropic);
        missed(&anthropic[..anthropic.len() - 1]);
        missed(&anthropic.replace("AA", "AB"));
        let openai = "sk-proj-Xk3v9QmZ2pLr8sTw1YbnQ7vH4cJ6T3BlbkFJdK8fM0gN2hP5jR7kT9lV1m";
        caught(Kind::OpenaiApiKey, openai);
        caught(Kind::OpenaiApiKey, "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");
        missed(&openai.replace("T3BlbkFJ", "T3BlbkFK"));
        missed("sk-illful-naming-of-things-is-hard-enough-really");
    }

    #[test]
    fn jwts_need_a_json_header_with_alg() {
        // {"alg":"HS256","typ":"JWT"} . {"sub":"1234567890","name":"Test"} . signature
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IlRlc3QifQ.\
                   c2lnbmF0dXJlLW5vdC1yZWFsLWJ1dC1sb25n";
        caught(Kind::Jwt, jwt);
        assert_eq!(kinds(&format!("Bearer {jwt}.")), [(Kind::Jwt, jwt.into())]);
        // Whatever stands around it (review s34): a dot and a word, a dot before, another JWT.
        for around in [format!("{jwt}.eyJhbGciOiJIUzI1NiJ9"), format!("x.{jwt}"), format!("{jwt}.json")] {
            assert_eq!(kinds(&around), [(Kind::Jwt, jwt.into())], "{around}");
        }
        assert_eq!(kinds(&format!("{jwt}.{jwt}")), [(Kind::Jwt, jwt.into()), (Kind::Jwt, jwt.into())]);
        // A JWE in compact form (RFC 7516's example A.1): five parts, a header with `enc`
        // (stop 36; before, no part being a JSON payload, it was missed). Direct encryption
        // leaves the second part empty.
        let jwe = "eyJhbGciOiJSU0EtT0FFUCIsImVuYyI6IkEyNTZHQ00ifQ.OKOawDo13gRp2ojaHV7LFpZcgV7T6DVZKTyKOMTYUmKoTCVJRgckCL9kiMT03JGeipsEdY3mx_etLbbWSrFr05kLzcSr4qKAq7YN7e9jwQRb23nfa6c9d-StnImGyFDbSv04uVuxIp5Zms1gNxKKK2Da14B8S4rzVRltdYwam_lDp5XnZAYpQdb76FdIKLaVmqgfwX7XWRxv2322i-vDxRfqNzo_tETKzpVLzfiwQyeyPGLBIO56YJ7eObdv0je81860ppamavo35UgoRdbYaBcoh9QcfylQr66oc6vFWXRcZ_ZT2LawVCWTIy3brGPi6UklfCpIMfIjf7iGdXKHzg.48V1_ALb6US04U3b.5eym8TW_c8SuK0ltJ3rpYIzOeDQz7TALvtu6UG9oMo4vpzs9tX_EFShS8iB7j6jiSdiwkIr3ajwQzaBtQD_A.XFBoMYUZodetZdvTiFvSkQ";
        caught(Kind::Jwt, jwe);
        assert_eq!(kinds(&format!("x.{jwe}.json")), [(Kind::Jwt, jwe.into())]);
        let (_, parts) = jwe.split_once('.').unwrap();
        let (_, rest) = parts.split_once('.').unwrap();
        // {"alg":"dir","enc":"A256GCM"}
        let direct = format!("eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..{rest}");
        caught(Kind::Jwt, &direct);
        // No `enc`; four parts; a tag or an IV too short; a part of impossible length.
        missed(&format!("eyJhbGciOiJkaXIifQ..{rest}"));
        missed(direct.rsplit_once('.').unwrap().0);
        missed(&direct.replace(".XFBoMYUZodetZdvTiFvSkQ", ".XFBoMYUZodet"));
        missed(&direct.replace(".48V1_ALb6US04U3b.", ".48V1_ALb6US."));
        missed(&direct.replace(".48V1_ALb6US04U3b.", ".48V1_ALb6US04U3bx."));
        missed("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IlRlc3QifQ.");
        // {"typ":"JWT"}: no alg.
        missed(
            "eyJ0eXAiOiJKV1QifQ.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IlRlc3QifQ.c2lnbmF0dXJlLW5vdC1yZWFsLWJ1dC1sb25n",
        );
        missed("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.bm90IGpzb24gYXQgYWxsLCBubw.c2lnbmF0dXJlLW5vdC1yZWFsLWJ1dC1sb25n");
    }

    #[test]
    fn pem_private_keys_and_slack_webhooks() {
        let body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\nMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu\n";
        let pem = format!("-----BEGIN PRIVATE KEY-----\n{body}-----END PRIVATE KEY-----");
        caught(Kind::PrivateKey, &pem);
        let rsa = pem.replace("BEGIN PRIVATE", "BEGIN RSA PRIVATE").replace("END PRIVATE", "END RSA PRIVATE");
        caught(Kind::PrivateKey, &rsa);
        let enc =
            rsa.replace("KEY-----\n", "KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\n");
        assert_eq!(kinds(&enc), [(Kind::PrivateKey, enc.clone())]);
        missed("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg...\n-----END PRIVATE KEY-----");
        missed(&pem.replace("END PRIVATE", "END RSA PRIVATE"));
        missed(&pem.replace("-----END PRIVATE KEY-----", ""));
        missed(&pem.replace("PRIVATE KEY", "PUBLIC KEY"));
        for br in ["<br>", "<br/>", "<br />\n"] {
            caught(Kind::PrivateKey, &pem.replace('\n', br));
        }
        let hook = "https://hooks.slack.com/services/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";
        caught(Kind::SlackWebhook, hook);
        missed("https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX");
        missed(&format!("{hook}x"));
    }

    #[test]
    fn policy_detect_reads_and_names_bad_keys() {
        assert_eq!(Detect::from_json(&Value::Bool(false)).unwrap(), Detect::NONE);
        let d = Detect::from_json(&serde_json::json!({ "jwt": false })).unwrap();
        assert!(!d.has(Kind::Jwt) && d.has(Kind::GithubToken));
        let e = Detect::from_json(&serde_json::json!({ "jwtt": false })).unwrap_err();
        assert!(e.contains("jwtt"), "{e}");
        assert!(Detect::from_json(&serde_json::json!({ "jwt": "no" })).unwrap_err().contains("policy.detect.jwt"));
        assert!(Detect::from_json(&serde_json::json!(["jwt"])).is_err());
        let mut work = 0;
        let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IlRlc3QifQ.c2lnbmF0dXJlLW5vdC1yZWFsLWJ1dC1sb25n";
        assert!(detect(jwt, d, &mut work).is_empty());
    }

    type Family = (&'static str, fn(usize) -> String);

    /// Each family of text at 100 and 200 KB: the work doubles at most (plus a little) and
    /// stays within a few steps per byte, whatever the text does to the scanners.
    #[test]
    fn work_is_linear_in_the_text() {
        let families: [Family; 11] = [
            ("prose", |n| "The quick brown fox, 42 times. ".repeat(n / 31)),
            ("one long token", |n| "a".repeat(n)),
            ("jwt headers without ends", |n| "eyJhbGciOiJIUzI1NiJ9.".repeat(n / 21)),
            ("pem with html breaks", |n| format!("-----BEGIN PRIVATE KEY-----<br>{}", "QUJD<br/>".repeat(n / 9))),
            ("pem openings", |n| "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n".repeat(n / 37)),
            ("one pem opening", |n| format!("-----BEGIN PRIVATE KEY-----\n{}", "QUJD\n".repeat(n / 5))),
            ("webhook hosts", |n| "hooks.slack.com/services/T024BE7LD/".repeat(n / 35)),
            ("base64 runs", |n| "q8Vb3Xk/7Jd+Ls2Nw9Pz4Rt6Hy1Gf5Mc0Ae8UiKo AKIA2OGYBAH6STMMNXNN ".repeat(n / 62)),
            ("labels", |n| "aws_secret_access_key = ".repeat(n / 24)),
            ("one escape nested deep", |n| format!("%{}", "25".repeat(n / 2))),
            ("escapes", |n| "%2522AIza\\u0022AIza\\nAIza".repeat(n / 26)),
        ];
        for (name, text) in families {
            let (small, large) = (text(100_000), text(200_000));
            let (mut w1, mut w2) = (0, 0);
            detect(&small, Detect::ALL, &mut w1);
            detect(&large, Detect::ALL, &mut w2);
            assert!(w2 as f64 <= 2.2 * w1 as f64, "{name}: {w1} then {w2}");
            assert!(w2 <= 12 * large.len() as u64, "{name}: {w2} steps for {} bytes", large.len());
        }
    }

    #[test]
    fn the_class_table_and_bits_are_the_predicates() {
        for c in 0..=255u8 {
            let token = c.is_ascii_alphanumeric() || c == b'_' || c == b'-';
            let b64 = c.is_ascii_alphanumeric() || c == b'+' || c == b'/';
            assert_eq!((is_token(c), is_b64(c)), (token, b64), "byte {c}");
            assert_eq!(all_alnum(&[c]), c.is_ascii_alphanumeric(), "byte {c}");
        }
        for (i, kind) in Kind::ALL.into_iter().enumerate() {
            assert_eq!(kind.bit(), 1 << i, "{kind:?}");
        }
    }

    #[test]
    fn a_text_without_a_candidate_skips_every_scanner() {
        // The scan alone: one step per byte, where the scanners would add theirs.
        let text = "The quick brown fox, 42 times; git, npm and a SHA-1 da39a3ee5e6b4b0d. ".repeat(100);
        let (mut fast, mut slow) = (0, 0);
        assert!(detect(&text, Detect::ALL, &mut fast).is_empty());
        assert!(oracle::detect(&text, Detect::ALL, &mut slow).is_empty());
        assert_eq!(fast, text.len() as u64);
        assert!(slow > 3 * fast, "{slow}");
        assert!(!scan(&text).any() && !oracle::needs_views(&text, Detect::ALL));
    }
}

/// `detect`, `needs_views` and `scrub::detected` against the oracle, on texts built from every
/// kind's prefixes and pieces at wrong lengths and alphabets, glued together, behind escapes,
/// next to non-ASCII: the scan must never skip a scanner that would have found something.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod props {
    use super::tests::with_crc;
    use super::*;
    use proptest::prelude::*;

    const PIECES: &[&str] = &[
        "AKIA",
        "ASIA",
        "AKIA2OGYBAH6STMMNXNN",
        "ASIAY34FZKBOKMUTVV7A",
        "AKIAIOSFODNN7EXAMPLE",
        "AIza",
        "ghp_",
        "gho_",
        "ghx_",
        "github_pat_",
        "git",
        "npm_",
        "glpat-",
        "xoxb-",
        "xoxp-2781934562-",
        "xox",
        "sk_live_",
        "rk_test_",
        "pk_live_",
        "sk_",
        "sk-",
        "sk-ant-api03-",
        "sk-proj-",
        "T3BlbkFJ",
        "AA",
        "eyJ",
        "eyJhbGciOiJIUzI1NiJ9",
        "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IlRlc3QifQ",
        "-----BEGIN ",
        "-----BEGIN",
        "PRIVATE KEY-----",
        "-----END PRIVATE KEY-----",
        "-----BEGIN RSA PRIVATE KEY-----\n",
        "-----END RSA PRIVATE KEY-----",
        "Proc-Type: 4,ENCRYPTED\n",
        "hooks.slack.com/services/",
        "hooks.slack.com",
        "https://",
        "T024BE7LD/",
        "B08KQ3V2N1M/",
        "Xk3v9QmZ2pLr8sTw1YbnQ7vH",
        "aws_secret_access_key = ",
        "\"SecretAccessKey\": \"",
        "ecret",
        "ECRET",
        "EXAMPLEKEY",
        "q8Vb3Xk/7Jd+Ls2Nw9Pz4Rt6Hy1Gf5Mc0Ae8UiKo",
        "%22",
        "%2522",
        "%",
        "\\n",
        "\\u0022",
        "\\x22",
        "\\U0001F511",
        "\\",
        "\n",
        " ",
        ".",
        "_",
        "-",
        "/",
        "+",
        "=",
        "\"",
        "<br>",
        "é",
        "—",
        "日",
    ];

    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => prop::sample::select(PIECES).prop_map(str::to_string),
            3 => "[A-Za-z0-9]{1,45}",
            1 => "[A-Za-z0-9+/]{40}",
            1 => "[A-Za-z0-9_-]{20,60}",
            1 => "[a-z0-9]{30}".prop_map(|r| with_crc("ghp_", &r)),
            1 => "[A-Za-z0-9]{30}".prop_map(|r| with_crc("npm_", &r)),
            1 => "[ -~éü]{1,8}",
        ]
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(piece(), 0..24).prop_map(|pieces| pieces.concat())
    }

    fn kinds() -> impl Strategy<Value = Detect> {
        prop_oneof![
            2 => Just(Detect::ALL),
            1 => any::<u16>().prop_map(|bits| {
                let mut d = Detect::NONE;
                for (i, kind) in Kind::ALL.into_iter().enumerate() {
                    d.set(kind, bits & (1 << i) != 0);
                }
                d
            }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn detect_agrees_with_the_oracle(text in text(), on in kinds()) {
            let (mut fast, mut slow) = (0, 0);
            prop_assert_eq!(detect(&text, on, &mut fast), oracle::detect(&text, on, &mut slow));
            prop_assert_eq!(scan(&text).needs_views(on), oracle::needs_views(&text, on));
            prop_assert!(fast <= slow + text.len() as u64);
        }

        #[test]
        fn scan_agrees_with_the_scan_before(text in text()) {
            prop_assert_eq!(scan(&text), oracle::scan(&text));
        }

        #[test]
        fn detected_agrees_with_the_oracle(text in text(), on in kinds()) {
            // `scrub::detected` as it was: the oracle on the text, and on its decoded views
            // where the oracle's `needs_views` says so.
            let mut want = Vec::new();
            let mut found = |t: &str| {
                let hits = oracle::detect(t, on, &mut 0);
                want.extend(hits.into_iter().map(|f| (f.kind, t[f.start..f.end].to_string())));
            };
            found(&text);
            if oracle::needs_views(&text, on) {
                crate::scrub::unescape::for_each_view(&text, &crate::scrub::meter::Meter::default(), &mut |view, _| found(view));
            }
            prop_assert_eq!(crate::scrub::detected(&text, on, &crate::scrub::meter::Meter::default()), want);
        }
    }
}

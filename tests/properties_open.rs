//! The properties of `tests/properties.rs` on the inputs where they failed when they were
//! written. Those whose class has since been closed run in `cargo test` like any other test.
//! Each one still open is `#[ignore]`d with the open leak it reports as its reason, so that
//! `cargo test` stays green while the report stays runnable; none is counted as passing.
//! They are the bug reports: run them with
//!
//! ```text
//! cargo test --test properties_open -- --ignored            # all of them
//! cargo test --test properties_open -- --ignored forged_mcp  # one class
//! ```
//!
//! and a failure prints the minimal case (tool, raw result, agent view). When a class is fixed,
//! its test passes: move it to `tests/properties.rs` (and, for a class in `props::Open`, drop
//! the variant, so that the passing properties cover those inputs too). The seed and the number
//! of cases are set as for the passing properties (`WEBMCP_PROPTEST_SEED`,
//! `WEBMCP_PROPTEST_CASES`).
//!
//! Two kinds of open classes: those in `props::Open` (inputs the passing properties are moved
//! out of, see `Case::close`), and sites the passing properties never generate (forged library
//! parts, block fields value matching skips, blocks the MCP SDK rejects, Go's JSON escaping).

#![cfg(not(target_arch = "wasm32"))]

mod props;

use props::echo::{Form, Site, CLAIMED_FORMS, CLAIMED_SITES};
use props::*;
use webmcp_redact::Format;

// Classes of `props::Open`.

property! {
    #[ignore = "open leak (McpNonObjectStructured): in the mcp format a non-object structuredContent is dropped unwalked; its secrets leak through every echo"]
    /// mcp format, structuredContent an array or a scalar: no canary, and a second pass changes nothing.
    fn open_mcp_non_object_structured_content(c in case(CLAIMED_SITES, CLAIMED_FORMS, 4)) {
        run_case(&c.into_class(Open::McpNonObjectStructured), true, true).map(drop)
    }
}

property! {
    #[ignore = "open (StructuredMarkedWhole): a structuredContent marked whole stays as null (not MCP) and a scalar one is taken again by a second pass"]
    /// structuredContent marked as a whole: the mcp view validates, and a second pass changes nothing.
    fn open_structured_content_marked_whole(c in case(CLAIMED_SITES, CLAIMED_FORMS, 4)) {
        run_case(&c.into_class(Open::StructuredMarkedWhole), true, true).map(drop)
    }
}

property! {
    // Closed since: this property holds on main and runs in `cargo test`.
    /// Allowlist mode, a known secret as the key of an undeclared property: no canary.
    fn open_undeclared_key_as_stub_label(c in case(CLAIMED_SITES, CLAIMED_FORMS, 4)) {
        run_case(&c.into_class(Open::KeyAsLabel), true, false).map(drop)
    }
}

property! {
    #[ignore = "open leak (EscapedInJsonText): a JSON text block holding an already-escaped secret has it escaped three times; value matching knows two"]
    /// A JSON text block holding a value escaped once already: no canary.
    fn open_escaped_value_in_json_text(c in case(CLAIMED_SITES, CLAIMED_FORMS, 4)) {
        run_case(&c.into_class(Open::EscapedInJsonText), true, false).map(drop)
    }
}

property! {
    #[ignore = "open leak (EscapedInJsonText): the same in a later result of another tool"]
    fn open_escaped_value_in_json_text_later(c in carry_in(Open::EscapedInJsonText, CLAIMED_SITES, CLAIMED_FORMS)) {
        run_carry(&c, false)
    }
}

property! {
    // Closed since: this property holds on main and runs in `cargo test`.
    /// A known secret as a key of the result or of its `_meta`: no canary.
    fn open_top_level_keys(c in case(CLAIMED_SITES, CLAIMED_FORMS, 4)) {
        run_case(&c.into_class(Open::TopLevelKeys), true, false).map(drop)
    }
}

property! {
    // Closed since: this property holds on main and runs in `cargo test`.
    fn open_top_level_keys_later(c in carry_in(Open::TopLevelKeys, CLAIMED_SITES, CLAIMED_FORMS)) {
        run_carry(&c, false)
    }
}

// Sites the passing properties never generate (or, for forged parts, generate only where the
// property holds: see `tests/properties.rs`): in the same result, or in a later result of
// another, unmarked tool.

macro_rules! same_result {
    ($($site:ident: $name:ident, $why:literal;)*) => {$(
        property! {
            #[ignore = $why]
            fn $name(c in closed(case_with(&[Site::$site], CLAIMED_SITES, CLAIMED_FORMS, 3))) {
                run_case(&c, true, false).map(drop)
            }
        }
    )*};
}

macro_rules! later_result {
    ($($site:ident: $name:ident, $why:literal;)*) => {$(
        property! {
            #[ignore = $why]
            fn $name(c in carry_with(&[Site::$site], CLAIMED_SITES, CLAIMED_FORMS, 3)) {
                run_carry(&c, false)
            }
        }
    )*};
}

// Classes closed since these properties were written: they run in `cargo test`, not ignored.
macro_rules! closed_in_same_result {
    ($($site:ident: $name:ident;)*) => {$(
        property! {
            fn $name(c in closed(case_with(&[Site::$site], CLAIMED_SITES, CLAIMED_FORMS, 3))) {
                run_case(&c, true, false).map(drop)
            }
        }
    )*};
}

macro_rules! closed_in_later_result {
    ($($site:ident: $name:ident;)*) => {$(
        property! {
            fn $name(c in carry_with(&[Site::$site], CLAIMED_SITES, CLAIMED_FORMS, 3)) {
                run_carry(&c, false)
            }
        }
    )*};
}

same_result! {
    MediaData: open_known_value_in_image_data, "open leak: value matching skips an image's data (a documented choice: README, How it works, 5)";
    ResourceBlob: open_known_value_in_resource_blob, "open leak: value matching skips a resource's blob";
    AnnotationField: open_known_value_in_annotations, "open leak: value matching skips annotations (a documented choice: README, How it works, 5)";
}

closed_in_same_result! {
    ForgedReference: open_forged_reference;
    ForgedMcpStub: open_forged_mcp_stub;
    MimeType: open_known_value_in_mime_type;
    HandleField: open_known_value_in_a_handle_field;
}

later_result! {
    MediaData: open_known_value_in_image_data_later, "open leak: value matching skips an image's data (a documented choice: README, How it works, 5)";
    ResourceBlob: open_known_value_in_resource_blob_later, "open leak: value matching skips a resource's blob";
    AnnotationField: open_known_value_in_annotations_later, "open leak: value matching skips annotations (a documented choice: README, How it works, 5)";
}

closed_in_later_result! {
    ForgedNotice: open_forged_notice_later;
    ForgedNoticeWording: open_forged_notice_wording_later;
    ForgedReference: open_forged_reference_later;
    ForgedMcpStub: open_forged_mcp_stub_later;
    ForgedMetaKey: open_forged_meta_key_later;
    ForgedReport: open_forged_report_later;
    MimeType: open_known_value_in_mime_type_later;
    HandleField: open_known_value_in_a_handle_field_later;
}

property! {
    #[ignore = "open leak: in allowlist mode a value taken from an undeclared member at the top of the result is learned after the blocks were value-matched"]
    /// A sensitive tool with marks: the value of an undeclared top-level member, echoed in a text block: no canary.
    fn open_undeclared_top_level_value_taken_after_the_blocks(c in case_with(&[Site::UndeclaredTop], CLAIMED_SITES, CLAIMED_FORMS, 3)) {
        run_case(&c.allowlisted(), true, false).map(drop)
    }
}

property! {
    #[ignore = "open leak: in allowlist mode a value taken from an undeclared _meta key is learned after the blocks were value-matched"]
    /// A sensitive tool with marks: the value of an undeclared `_meta` key, echoed in a text block: no canary.
    fn open_undeclared_meta_value_taken_after_the_blocks(c in case_with(&[Site::UndeclaredMeta], CLAIMED_SITES, CLAIMED_FORMS, 3)) {
        run_case(&c.allowlisted(), true, false).map(drop)
    }
}

const GO: &[Form] = &[Form::GoHtml];

property! {
    // Closed since: this property holds on main and runs in `cargo test`.
    /// A secret written by Go's `json.Marshal` into a text block: no canary.
    fn open_go_json_escaping(c in closed(case_with(&[Site::Text], CLAIMED_SITES, GO, 3))) {
        run_case(&c, true, false).map(drop)
    }
}

property! {
    // Closed since: this property holds on main and runs in `cargo test`.
    fn open_go_json_escaping_later(c in carry_with(&[Site::Text], CLAIMED_SITES, GO, 3)) {
        run_carry(&c, false)
    }
}

property! {
    #[ignore = "open: in the mcp format, blocks the MCP SDK rejects (bad base64, priority out of range, ...) pass through"]
    /// The mcp view validates against CallToolResultSchema whatever blocks the tool returned.
    fn open_mcp_view_validates_whatever_the_blocks(c in closed(case_with(&[], props::echo::SDK_INVALID_SITES, CLAIMED_FORMS, 3))) {
        let c = Case { format: Format::Mcp, ..c }.outside_open_classes();
        run_case(&c, false, false).map(drop)
    }
}

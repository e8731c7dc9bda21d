//! The properties of `tests/properties.rs`, on inputs forced into each leak class the
//! adversarial review found (`props::Open`) and on sites only a hostile tool writes: forged
//! library parts, fields value matching never rewrites, blocks the MCP SDK rejects, Go's JSON
//! escaping. Each was a failing bug report once; all are closed now and run in `cargo test`,
//! one run per class:
//!
//! ```text
//! cargo test --test properties_open forged_mcp              # one class
//! ```
//!
//! A failure prints the minimal case (tool, raw result, agent view). The seed and the number
//! of cases are set as for `tests/properties.rs` (`WEBMCP_PROPTEST_SEED`,
//! `WEBMCP_PROPTEST_CASES`).

#![cfg(not(target_arch = "wasm32"))]

mod props;

use props::echo::{Form, Site, CLAIMED_FORMS, CLAIMED_SITES};
use props::*;
use webmcp_redact::Format;

// Classes of `props::Open`.

property! {
    /// mcp format, structuredContent an array or a scalar: no canary, and a second pass changes nothing.
    fn open_mcp_non_object_structured_content(c in case(CLAIMED_SITES, CLAIMED_FORMS, 4)) {
        run_case(&c.into_class(Open::McpNonObjectStructured), true, true).map(drop)
    }
}

property! {
    /// structuredContent marked as a whole: the mcp view validates, and a second pass changes nothing.
    fn open_structured_content_marked_whole(c in case(CLAIMED_SITES, CLAIMED_FORMS, 4)) {
        run_case(&c.into_class(Open::StructuredMarkedWhole), true, true).map(drop)
    }
}

property! {
    /// Allowlist mode, a known secret as the key of an undeclared property: no canary.
    fn open_undeclared_key_as_stub_label(c in case(CLAIMED_SITES, CLAIMED_FORMS, 4)) {
        run_case(&c.into_class(Open::KeyAsLabel), true, false).map(drop)
    }
}

property! {
    /// A JSON text block holding a value escaped once already: no canary.
    fn open_escaped_value_in_json_text(c in case(CLAIMED_SITES, CLAIMED_FORMS, 4)) {
        run_case(&c.into_class(Open::EscapedInJsonText), true, false).map(drop)
    }
}

property! {
    fn open_escaped_value_in_json_text_later(c in carry_in(Open::EscapedInJsonText, CLAIMED_SITES, CLAIMED_FORMS)) {
        run_carry(&c, false)
    }
}

property! {
    /// A known secret as a key of the result or of its `_meta`: no canary.
    fn open_top_level_keys(c in case(CLAIMED_SITES, CLAIMED_FORMS, 4)) {
        run_case(&c.into_class(Open::TopLevelKeys), true, false).map(drop)
    }
}

property! {
    fn open_top_level_keys_later(c in carry_in(Open::TopLevelKeys, CLAIMED_SITES, CLAIMED_FORMS)) {
        run_carry(&c, false)
    }
}

// Sites a hostile tool writes, required once in each case: in the same result, or in a later
// result of another, unmarked tool.

macro_rules! closed_in_same_result {
    ($($site:ident: $name:ident;)*) => {$(
        property! {
            fn $name(c in case_with(&[Site::$site], CLAIMED_SITES, CLAIMED_FORMS, 3)) {
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

closed_in_same_result! {
    MediaData: open_known_value_in_image_data;
    ResourceBlob: open_known_value_in_resource_blob;
    AnnotationField: open_known_value_in_annotations;
    ForgedReference: open_forged_reference;
    ForgedMcpStub: open_forged_mcp_stub;
    MimeType: open_known_value_in_mime_type;
    HandleField: open_known_value_in_a_handle_field;
}

closed_in_later_result! {
    MediaData: open_known_value_in_image_data_later;
    ResourceBlob: open_known_value_in_resource_blob_later;
    AnnotationField: open_known_value_in_annotations_later;
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
    /// A sensitive tool with marks: the value of an undeclared top-level member, echoed in a text block: no canary.
    fn open_undeclared_top_level_value_taken_after_the_blocks(c in case_with(&[Site::UndeclaredTop], CLAIMED_SITES, CLAIMED_FORMS, 3)) {
        run_case(&c.allowlisted(), true, false).map(drop)
    }
}

property! {
    /// A sensitive tool with marks: the value of an undeclared `_meta` key, echoed in a text block: no canary.
    fn open_undeclared_meta_value_taken_after_the_blocks(c in case_with(&[Site::UndeclaredMeta], CLAIMED_SITES, CLAIMED_FORMS, 3)) {
        run_case(&c.allowlisted(), true, false).map(drop)
    }
}

const GO: &[Form] = &[Form::GoHtml];

property! {
    /// A secret written by Go's `json.Marshal` into a text block: no canary.
    fn open_go_json_escaping(c in case_with(&[Site::Text], CLAIMED_SITES, GO, 3)) {
        run_case(&c, true, false).map(drop)
    }
}

property! {
    fn open_go_json_escaping_later(c in carry_with(&[Site::Text], CLAIMED_SITES, GO, 3)) {
        run_carry(&c, false)
    }
}

property! {
    /// The mcp view validates against CallToolResultSchema whatever blocks the tool returned.
    fn open_mcp_view_validates_whatever_the_blocks(c in case_with(&[], props::echo::SDK_INVALID_SITES, CLAIMED_FORMS, 3)) {
        let c = Case { format: Format::Mcp, ..c };
        run_case(&c, false, false).map(drop)
    }
}

//! The MLA prefill backend (`mla/prefill/`): selected apart from the decode backend; its kernel is the MLA group's
//! prefill kernel (to be restated from `docs/source-notes/mla-selection.md` §6 and `mla-path.md` §4).

//! The serve module's unit tests: the embedded tables, each parsing step through [`parse`](fn@parse), the round trip
//! through [`format`](fn@format), and the Python helpers.

use super::enums::{parse_enums, ENUMS_TSV};
use super::json::Value;
use super::pydantic::{expand_hr_numbers, truncate_repr};
use super::python::{
    decimal_to_f64, human_readable_int, human_readable_int_text, integer_text, py_float, py_float_repr, py_json_dumps, py_lower,
    py_repr, py_str_repr, py_upper, shortest_digits,
};
use super::table::{parse_table, split_choices, FLAGS_TSV};
use super::*;
use crate::release::Release;
use crate::release::Release::*;
use crate::test_rng::Rng;

fn ok(r: Release, line: &str) -> ServeCommand {
    match parse(r, line) {
        Ok(c) => c,
        Err(e) => panic!("{line:?} on {r}: {e}"),
    }
}

fn fail(r: Release, line: &str) -> ParseError {
    match parse(r, line) {
        Ok(c) => panic!("{line:?} on {r} parsed: {c:?}"),
        Err(e) => e,
    }
}

#[test]
fn the_table_parses_and_covers_every_release() {
    let rows = parse_table(FLAGS_TSV).expect("data/vllm-flags.tsv parses");
    // counts from docs/source-notes/cli-flags.md section 3 (options, without model_tag and --help)
    let counts = [
        (V0_20_0, 239),
        (V0_20_1, 239),
        (V0_20_2, 239),
        (V0_21_0, 247),
        (V0_22_0, 261),
        (V0_22_1, 261),
        (V0_23_0, 261),
        (V0_24_0, 266),
        (V0_25_0, 270),
        (V0_25_1, 270),
        (V0_26_0, 274),
        (V0_27_0, 282),
        (V0_28_0, 284),
        (V0_29_0, 292),
        (V0_30_0, 300),
        (V0_31_0, 311),
        (V0_32_0, 316),
        (V0_33_0, 320),
    ];
    // Keyed by source release: a release that reads another's files (0.25.1, 0.27.1, a byte-identical one added
    // later) has that release's count.
    for r in Release::ALL {
        let n = counts.iter().find(|c| c.0 == r.source_release()).map(|c| c.1);
        let n = n.unwrap_or_else(|| panic!("no option count for {r}'s source release {}", r.source_release()));
        assert_eq!(rows.iter().filter(|row| row.covers(r)).count(), n, "{r}");
    }
    // a flag has at most one row per release
    for r in Release::ALL {
        let mut flags: Vec<&str> = rows.iter().filter(|row| row.covers(r)).map(|row| row.flag.as_str()).collect();
        let n = flags.len();
        flags.sort_unstable();
        flags.dedup();
        assert_eq!(flags.len(), n, "{r}");
    }
    assert!(parse_table("# c\nflag\taliases\tkind\tfirst\tlast\tchoices\ttype\n--x\t-\tvalue\t0.24.0\t-\t-\tnope\n").is_err());
    assert!(parse_table("flag\taliases\n").is_err());
    assert_eq!(split_choices("a,b\\,c,d"), ["a", "b,c", "d"]);
}

/// `data/vllm-enums.tsv` holds exactly the lists that were Rust consts (`BACKENDS`, `ATTENTION_FIELDS`,
/// `CACHE_DTYPES`) before it: per release, the number of names in each list and an FNV-1a digest of the three lists
/// (names `,`-joined in declaration order, lists `;`-joined) computed from those consts.
#[test]
fn the_name_lists_parse_and_match_the_former_consts() {
    let enums = parse_enums(ENUMS_TSV).expect("data/vllm-enums.tsv parses");
    let fnv1a = |bytes: &[u8]| {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    // One row per source release (a release that reads another's files reads its lists).
    // (0.20.0–0.23.0 have no former consts: their rows are the generator's lists, read from the wheels by
    // scripts/gen-vllm-flags.py --enums and checked by scripts/check-generated.sh.)
    let want = [
        (V0_20_0, 25, 12, 15, 0x90e9_cd39_cbd1_0351),
        (V0_20_1, 25, 12, 15, 0x90e9_cd39_cbd1_0351),
        (V0_20_2, 25, 12, 15, 0x90e9_cd39_cbd1_0351),
        (V0_21_0, 25, 14, 15, 0xdca9_baee_c701_6af7),
        (V0_22_0, 25, 15, 15, 0x2c87_927e_b280_1929),
        (V0_22_1, 25, 15, 15, 0x2c87_927e_b280_1929),
        (V0_23_0, 28, 15, 15, 0x60bd_3037_1d25_a423),
        (V0_24_0, 31, 16, 15, 0x1bfa_c52e_fab1_b399),
        (V0_25_0, 33, 16, 16, 0x3f26_747b_1f44_c17a),
        (V0_26_0, 33, 18, 16, 0x16f7_5ee6_6b7e_ea8e),
        (V0_27_0, 35, 19, 16, 0x3b75_0739_cc6a_b99f),
        (V0_28_0, 36, 19, 17, 0x827c_2a10_047b_2813),
        (V0_29_0, 37, 18, 17, 0x9630_2622_7dd2_f8d0),
        (V0_30_0, 43, 18, 18, 0x395d_1268_21cb_3bec),
        (V0_31_0, 44, 19, 18, 0x0b17_e901_eb29_a04d),
        (V0_32_0, 46, 21, 19, 0x9280_4223_dac8_5692),
        (V0_33_0, 50, 24, 22, 0xeaaa_2011_644d_e422),
    ];
    for r in Release::ALL {
        let Some(&(_, backends, fields, dtypes, digest)) = want.iter().find(|w| w.0 == r.source_release()) else {
            panic!("no name lists for {r}'s source release {}", r.source_release())
        };
        let lists = [enums.backends(r), enums.attention_fields(r), enums.cache_dtypes(r)];
        assert_eq!(lists.each_ref().map(Vec::len), [backends, fields, dtypes], "{r}");
        let joined: Vec<String> = lists.iter().map(|l| l.join(",")).collect();
        assert_eq!(fnv1a(joined.join(";").as_bytes()), digest, "{r}");
        assert_eq!((lists[0][0], lists[0][backends - 1]), ("FLASH_ATTN", "CUSTOM"), "{r}");
        let last_field = if r >= V0_22_0 {
            "flex_attn_kv_block_size"
        } else if r >= V0_21_0 {
            "use_non_causal"
        } else {
            "use_fp4_indexer_cache"
        };
        assert_eq!((lists[1][0], lists[1][fields - 1]), ("backend", last_field), "{r}");
        let last_dtype = if r >= V0_28_0 { "nvfp4_4over6" } else { "nvfp4" };
        assert_eq!((lists[2][0], lists[2][dtypes - 1]), ("auto", last_dtype), "{r}");
    }
    // each bound, on both sides
    let has = |list: Vec<&str>, name: &str| list.contains(&name);
    assert!(!has(enums.backends(V0_29_0), "TRITON_FLASHINFER") && has(enums.backends(V0_30_0), "TRITON_FLASHINFER"));
    assert!(!has(enums.backends(V0_26_0), "CUTLASS_MSA") && has(enums.backends(V0_27_0), "CUTLASS_MSA"));
    assert!(has(enums.attention_fields(V0_28_0), "use_prefill_decode_attention"));
    assert!(!has(enums.attention_fields(V0_29_0), "use_prefill_decode_attention"));
    assert!(has(enums.attention_fields(V0_29_0), "use_fp4_indexer_cache"));
    assert!(!has(enums.attention_fields(V0_30_0), "use_fp4_indexer_cache"));
    assert!(!has(enums.cache_dtypes(V0_24_0), "int4_per_token_head"));
    assert!(has(enums.cache_dtypes(V0_25_0Prefix), "int4_per_token_head"));
    // a broken file is an error, never a panic
    let header = "list\tname\tfirst\tlast\n";
    let rows = "AttentionBackendEnum\tA\t0.24.0\t-\nAttentionConfig\tb\t0.24.0\t0.28.0\nCacheDType\tc\t0.30.0\t-\n";
    assert!(parse_enums(&format!("# c\n{header}{rows}")).is_ok());
    assert!(parse_enums(rows).unwrap_err().contains("expected the header row"));
    assert!(parse_enums(&format!("{header}AttentionBackendEnum\tA\t0.24.0\n"))
        .unwrap_err()
        .contains("4 columns"));
    assert!(parse_enums(&format!("{header}{rows}Other\tx\t0.24.0\t-\n"))
        .unwrap_err()
        .contains("bad list"));
    assert!(parse_enums(&format!("{header}{rows}CacheDType\tx\t0.99.0\t-\n"))
        .unwrap_err()
        .contains("bad first"));
    assert!(parse_enums(&format!("{header}{rows}CacheDType\tx\t0.24.0\tnever\n"))
        .unwrap_err()
        .contains("bad last"));
    assert!(parse_enums(&format!("{header}AttentionBackendEnum\tA\t0.24.0\t-\n"))
        .unwrap_err()
        .contains("no AttentionConfig"));
}

#[test]
fn seed_command() {
    let c = ok(
        V0_33_0,
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8 --kv-cache-dtype-skip-layers 0 sliding_window",
    );
    assert_eq!(c.model, "meta-llama/Llama-3.1-8B-Instruct");
    assert_eq!(c.kv_cache_dtype, "fp8");
    assert_eq!(c.kv_cache_dtype_skip_layers, ["0", "sliding_window"]);
    assert_eq!(c.dtype, "auto");
    assert_eq!((c.tensor_parallel_size, c.decode_context_parallel_size), (1, 1));
    assert!(c.unused.is_empty() && c.env.is_empty());
    for r in Release::ALL {
        assert_eq!(
            parse(r, "vllm serve m --kv-cache-dtype fp8").map(|c| c.kv_cache_dtype),
            Ok("fp8".into()),
            "{r}"
        );
    }
}

/// `unused_option` reads an unused entry as the release's argparse did: `=` values, `_` spellings, unique prefixes,
/// the negative forms of a boolean (0.33.0's `--disable-…` too), and nothing for an option the release lacks.
#[test]
fn unused_option_of_reads_the_value_only_of_the_options_asked_for() {
    let r = Release::LATEST;
    for entry in [
        "--mamba-backend triton",
        "--mamba_backend=triton",
        "'--mamba-backend' \"triton\"",
    ] {
        assert_eq!(
            unused_option_of(r, entry, &["--mamba-backend"]),
            unused_option(r, entry),
            "{entry}"
        );
        assert!(unused_option_of(r, entry, &["--mamba-backend"]).is_some(), "{entry}");
        assert_eq!(unused_option_of(r, entry, &["--enable-lora"]), None, "{entry}");
    }
    // A long value of another option is not read (only the option's own word is).
    let long = format!("--served-model-name {}", "x".repeat(100_000));
    assert_eq!(unused_option_of(r, &long, &["--enable-lora"]), None);
    assert_eq!(
        unused_option_of(r, &long, &["--served-model-name"])
            .and_then(|o| o.value)
            .map(|v| v.len()),
        Some(100_000)
    );
}

#[test]
fn unused_option_reads_entries_as_argparse_did() {
    let read = |r, cmd: &str| {
        let c = ok(r, cmd);
        let o = unused_option(r, &c.unused[0]).expect("an option of the release");
        (o.flag, o.option, o.value)
    };
    let m = "vllm serve m";
    assert_eq!(
        read(V0_33_0, &format!("{m} --gdn-prefill-backend=triton")),
        ("--gdn-prefill-backend", "--gdn-prefill-backend".into(), Some("triton".into()))
    );
    assert_eq!(
        read(V0_33_0, &format!("{m} --gdn_prefill_backend cutedsl")).2,
        Some("cutedsl".into())
    );
    assert_eq!(read(V0_33_0, &format!("{m} --gdn-prefill triton")).0, "--gdn-prefill-backend");
    assert_eq!(read(V0_24_0, &format!("{m} --reasoning-parser 'a b'")).2, Some("a b".into()));
    assert_eq!(
        read(V0_33_0, &format!("{m} --no-use-replayssm")),
        ("--use-replayssm", "--no-use-replayssm".into(), None)
    );
    assert_eq!(
        read(V0_33_0, &format!("{m} --disable-prefix-caching")).1,
        "--disable-prefix-caching"
    );
    assert_eq!(unused_option(V0_24_0, "--use-replayssm"), None, "0.27.0+");
    let c = ok(
        V0_33_0,
        "VLLM_GDN_DECODE_KERNEL=triton VLLM_GDN_DECODE_KERNEL=cuda vllm serve m",
    );
    assert_eq!(c.env_value("VLLM_GDN_DECODE_KERNEL"), Some("cuda"));
    assert_eq!(py_int_bool(" 0 "), Ok(false));
    assert_eq!(
        py_int_bool("yes"),
        Err("invalid literal for int() with base 10: 'yes'".into())
    );
}

#[test]
fn environment_prefix_and_env_flag() {
    let c = ok(V0_33_0, "VLLM_BATCH_INVARIANT=1 VLLM_HAS_FLASHINFER_CUBIN=0 vllm serve m");
    assert_eq!(
        c.env,
        [
            ("VLLM_BATCH_INVARIANT".to_string(), "1".to_string()),
            ("VLLM_HAS_FLASHINFER_CUBIN".to_string(), "0".to_string())
        ]
    );
    assert_eq!(c.env_flag("VLLM_BATCH_INVARIANT"), Ok(Some(true)));
    assert_eq!(c.env_flag("VLLM_HAS_FLASHINFER_CUBIN"), Ok(Some(false)));
    assert_eq!(c.env_flag("VLLM_KV_CACHE_LAYOUT"), Ok(None));
    let c = ok(V0_33_0, "A=2 B=' -1 ' C=true D= E=1_0 F=0x1 A=0 vllm serve m");
    assert_eq!(c.env_flag("A"), Ok(Some(false)), "the last assignment wins");
    assert_eq!(c.env_flag("B"), Ok(Some(true)));
    assert_eq!(c.env_flag("E"), Ok(Some(true)));
    for bad in ["C", "D", "F"] {
        let e = c.env_flag(bad).unwrap_err();
        assert!(
            e.starts_with(&format!("{bad}=")) && e.contains("invalid literal for int() with base 10"),
            "{e}"
        );
    }
    // a quoted name is not an assignment: the shell would run it as the command
    let e = fail(V0_33_0, "'A=1' vllm serve m");
    assert!(e.message.contains("expected `vllm serve"), "{e}");
}

#[test]
fn vllms_own_attention_config_test_forms() {
    // tests/engine/test_arg_utils.py style: dotted keys and a JSON value
    let c = ok(
        V0_33_0,
        "vllm serve m --attention-config.use_trtllm_attention true --attention-config.disable_flashinfer_q_quantization true",
    );
    assert_eq!(c.attention_config.use_trtllm_attention, Some(true));
    assert!(c.attention_config.disable_flashinfer_q_quantization);
    let c = ok(
        V0_33_0,
        r#"vllm serve m --attention-config '{"use_trtllm_attention": false, "disable_flashinfer_q_quantization": false}'"#,
    );
    assert_eq!(c.attention_config.use_trtllm_attention, Some(false));
    assert!(!c.attention_config.disable_flashinfer_q_quantization);
    let c = ok(V0_24_0, "vllm serve m -ac.use_trtllm_attention=false");
    assert_eq!(c.attention_config.use_trtllm_attention, Some(false));
    // pydantic's lax bool
    for (v, want) in [
        ("1", true),
        ("0", false),
        ("True", true),
        ("yes", true),
        ("OFF", false),
        ("t", true),
        ("n", false),
    ] {
        let c = ok(V0_30_0, &format!("vllm serve m -ac.use_trtllm_attention {v}"));
        assert_eq!(c.attention_config.use_trtllm_attention, Some(want), "{v}");
    }
    let e = fail(V0_30_0, "vllm serve m -ac.use_trtllm_attention None");
    assert_eq!(
        e.message,
        "vllm serve: error: argument --attention-config/-ac: 1 validation error for AttentionConfig\n\
         use_trtllm_attention\n  Input should be a valid boolean, unable to interpret input \
         [type=bool_parsing, input_value='None', input_type=str]"
    );
    let e = fail(V0_30_0, "vllm serve m -ac.use_trtllm_attention 2");
    assert!(e.message.contains("input_value=2, input_type=int"), "{e}");
    // null is None for `bool | None`, an error for `bool`
    assert_eq!(
        ok(V0_33_0, "vllm serve m -ac.use_trtllm_attention null")
            .attention_config
            .use_trtllm_attention,
        None
    );
    assert!(fail(V0_33_0, "vllm serve m -ac.disable_flashinfer_q_quantization null")
        .message
        .contains("[type=bool_type"));
}

#[test]
fn dotted_keys_replace_json_and_spellings_do_not_merge() {
    let c = ok(
        V0_33_0,
        r#"vllm serve m --attention-config '{"backend":"FLASHINFER"}' -ac.use_trtllm_attention false"#,
    );
    assert_eq!(
        c.attention_config.backend, None,
        "the dotted dict is appended last and replaces the JSON"
    );
    assert_eq!(c.attention_config.use_trtllm_attention, Some(false));
    let c = ok(
        V0_33_0,
        "vllm serve m -ac.use_non_causal 1 --attention-config.use_trtllm_attention 0",
    );
    assert!(
        !c.attention_config.use_non_causal,
        "-ac.* and --attention-config.* are separate dicts, the last wins"
    );
    assert_eq!(c.attention_config.use_trtllm_attention, Some(false));
    let c = ok(V0_33_0, "vllm serve m -ac.use_non_causal 1 -ac.use_trtllm_attention=0");
    assert!(c.attention_config.use_non_causal);
    let c = ok(V0_33_0, "vllm serve m --attention_config.backend flashinfer");
    assert_eq!(c.attention_config.backend.as_deref(), Some("FLASHINFER"));
    assert_eq!(ok(V0_33_0, "vllm serve m -ac.backend Auto").attention_config.backend, None);
    // the value is the next token whatever it is
    let e = fail(V0_33_0, "vllm serve m -ac.use_trtllm_attention --enforce-eager");
    assert!(e.message.contains("input_value='--enforce-eager'"), "{e}");
    // a dotted key at the end: vLLM's IndexError
    let e = fail(V0_33_0, "vllm serve m -ac.use_trtllm_attention");
    assert!(e.message.contains("IndexError: list index out of range"), "{e}");
    assert_eq!(e.token.as_deref(), Some("-ac.use_trtllm_attention"));
    // human-readable numbers and lists
    let c = ok(
        V0_33_0,
        "vllm serve m -ac.flash_attn_max_num_splits_for_cuda_graph 2k -ac.flash_attn_version 3",
    );
    assert_eq!(
        c.attention_config.other,
        [("flash_attn_max_num_splits_for_cuda_graph".to_string(), "2000".to_string())]
    );
    assert_eq!(c.attention_config.flash_attn_version, Some(3));
    let c = ok(
        V0_33_0,
        r#"vllm serve m --attention-config '{"flash_attn_max_num_splits_for_cuda_graph": 1K}'"#,
    );
    assert_eq!(c.attention_config.other[0].1, "1024");
    let e = fail(
        V0_33_0,
        r#"vllm serve m --attention-config '{"flash_attn_max_num_splits_for_cuda_graph": 1.5K}'"#,
    );
    assert_eq!(
        e.message,
        "vllm serve: error: argument --attention-config/-ac: Decimals are not allowed with binary suffixes like K. \
         Did you mean to use 1.5k instead?"
    );
    let e = fail(V0_33_0, "vllm serve m -ac.flash_attn_version 5");
    assert!(e
        .message
        .contains("flash_attn_version\n  Input should be 2, 3 or 4 [type=literal_error, input_value=5"));
}

#[test]
fn attention_config_keys_follow_the_release() {
    // unknown key: pydantic extra="forbid"
    let e = fail(V0_33_0, "vllm serve m -ac.use-trtllm-attention 1");
    assert_eq!(
        e.message,
        "vllm serve: error: argument --attention-config/-ac: 1 validation error for AttentionConfig\n\
         use-trtllm-attention\n  Unexpected keyword argument [type=unexpected_keyword_argument, input_value=1, \
         input_type=int]"
    );
    // use_prefill_decode_attention: 0.24.0–0.28.0 only; backend_per_kind: 0.26.0+
    assert!(parse(V0_28_0, "vllm serve m -ac.use_prefill_decode_attention true").is_ok());
    assert!(fail(V0_29_0, "vllm serve m -ac.use_prefill_decode_attention true")
        .message
        .contains("Unexpected keyword"));
    assert!(fail(V0_25_1, r#"vllm serve m -ac.backend_per_kind '{}'"#)
        .message
        .contains("Unexpected keyword"));
    let c = ok(
        V0_26_0,
        r#"vllm serve m -ac.backend_per_kind '{"mla_attention": "FLASHINFER_MLA"}'"#,
    );
    assert_eq!(
        c.attention_config.other,
        [(
            "backend_per_kind".to_string(),
            r#"{"mla_attention":"FLASHINFER_MLA"}"#.to_string()
        )]
    );
    // backend names per release; the MiniMax aliases (0.27.0+) only pick the MSA decode kernel
    assert!(fail(V0_29_0, "vllm serve m -ac.backend TRITON_FLASHINFER")
        .message
        .contains("Unknown attention backend: 'TRITON_FLASHINFER'"));
    assert_eq!(
        ok(V0_30_0, "vllm serve m -ac.backend triton_flashinfer")
            .attention_config
            .backend
            .as_deref(),
        Some("TRITON_FLASHINFER")
    );
    let c = ok(V0_27_0, "vllm serve m -ac.backend CUTLASS_MSA");
    assert_eq!(c.attention_config.backend, None);
    assert_eq!(
        c.attention_config.other,
        [("minimax_m3_msa_decode_backend".to_string(), "\"cutlass\"".to_string())]
    );
    let e = fail(V0_24_0, "vllm serve m -ac.backend nope");
    assert!(
        e.message.contains(
            "backend\n  Value error, Unknown attention backend: 'NOPE'. Valid options are: FLASH_ATTN, FLASH_ATTN_DIFFKV, "
        ) && e
            .message
            .ends_with(", CUSTOM [type=value_error, input_value='nope', input_type=str]"),
        "{e}"
    );
    let e = fail(V0_33_0, "vllm serve m --attention-config '[1]'");
    assert!(
        e.message
            .ends_with("  Input should be an object [type=dataclass_type, input_value=[1], input_type=list]"),
        "{e}"
    );
    let e = fail(V0_33_0, "vllm serve m --attention-config 'not json'");
    assert!(
        e.message
            .contains("Invalid JSON: expected ident at line 1 column 2 [type=json_invalid, input_value='not json'"),
        "{e}"
    );
}

#[test]
fn attention_backend_flag() {
    let c = ok(V0_33_0, "vllm serve m --attention-backend FLASHINFER");
    assert_eq!(c.attention_backend.as_deref(), Some("FLASHINFER"));
    assert_eq!(c.attention_config.backend, None);
    assert_eq!(
        ok(V0_24_0, "vllm serve m --attention-backend flashinfer")
            .attention_backend
            .as_deref(),
        Some("flashinfer")
    );
    assert_eq!(ok(V0_24_0, "vllm serve m --attention-backend None").attention_backend, None);
    assert_eq!(
        ok(V0_24_0, "vllm serve m --attention-backend auto")
            .attention_backend
            .as_deref(),
        Some("auto")
    );
    let e = fail(V0_33_0, "vllm serve m --attention-backend FLASHINFER -ac.backend TRITON_ATTN");
    assert_eq!(
        e.message,
        "ValueError: attention_backend and attention_config.backend are mutually exclusive"
    );
    // "auto" is converted only after the exclusion test
    assert!(fail(V0_33_0, "vllm serve m --attention-backend auto -ac.backend FLASHINFER")
        .message
        .contains("mutually exclusive"));
    assert!(parse(V0_33_0, "vllm serve m --attention-backend FLASHINFER -ac.backend auto").is_ok());
    let e = fail(V0_33_0, "vllm serve m --attention-backend flashinfr");
    assert!(
        e.message
            .starts_with("ValueError: Unknown attention backend: 'FLASHINFR'. Valid options are: FLASH_ATTN,"),
        "{e}"
    );
    assert_eq!(e.token.as_deref(), Some("--attention-backend flashinfr"));
}

#[test]
fn context_and_tensor_parallel() {
    for line in [
        "vllm serve m -dcp 2",
        "vllm serve m --decode-context-parallel-size=2",
        "vllm serve m --decode_context_parallel_size 2",
    ] {
        assert_eq!(ok(V0_33_0, line).decode_context_parallel_size, 2, "{line}");
    }
    let c = ok(V0_24_0, "vllm serve m -tp 4 -dcp=2");
    assert_eq!((c.tensor_parallel_size, c.decode_context_parallel_size), (4, 2));
    assert_eq!(
        ok(V0_24_0, "vllm serve m -tp 2 --tensor-parallel-size 8").tensor_parallel_size,
        8,
        "the last one wins"
    );
    let e = fail(V0_33_0, "vllm serve m -dcp two");
    assert_eq!(
        e.message,
        "vllm serve: error: argument --decode-context-parallel-size/-dcp: invalid int value: 'two'"
    );
    assert_eq!(e.token.as_deref(), Some("-dcp two"));
    let e = fail(V0_33_0, "vllm serve m -tp 0");
    assert_eq!(
        e.message,
        "pydantic_core._pydantic_core.ValidationError: 1 validation error for ParallelConfig\ntensor_parallel_size\n  \
         Input should be greater than or equal to 1 [type=greater_than_equal, input_value=0, input_type=int]"
    );
    // Before 0.23.0 the field has no bound (config/parallel.py L113 in 0.22.1): 0 passes ParallelConfig and fails
    // later, where qpath does not follow it.
    for (release, line, flag) in [
        (V0_22_1, "vllm serve m -tp 0", "--tensor-parallel-size 0"),
        (V0_20_0, "vllm serve m -dcp -1", "--decode-context-parallel-size -1"),
        (V0_22_0, "vllm serve m --block-size 0", "--block-size 0"),
    ] {
        let e = fail(release, line);
        assert!(
            e.message
                .starts_with(&format!("qpath cannot model this: {flag}: vLLM {release} declares")),
            "{e}"
        );
    }
    let e = fail(V0_33_0, "vllm serve m -dcp");
    assert_eq!(
        e.message,
        "vllm serve: error: argument --decode-context-parallel-size/-dcp: expected one argument"
    );
    // Python's int(): whitespace, sign, underscores
    assert_eq!(ok(V0_33_0, "vllm serve m -tp ' +1_6 '").tensor_parallel_size, 16);
}

#[test]
fn unknown_options() {
    let e = fail(V0_33_0, "vllm serve m --foo bar");
    assert!(e.message.starts_with("vllm: error: unrecognized arguments: --foo bar"), "{e}");
    assert_eq!(e.token.as_deref(), Some("--foo"));
    // close to a real option: did-you-mean
    let e = fail(V0_33_0, "vllm serve m --kv-cache-dtype-skip 0 --tensor-paralel-size 2");
    assert!(e.message.contains("did you mean `--tensor-parallel-size`?"), "{e}");
    // `--kv-cache-dtype-skip` is a unique prefix, so argparse accepts it
    assert!(
        e.message
            .starts_with("vllm: error: unrecognized arguments: --tensor-paralel-size 2\n"),
        "{e}"
    );
    // 0.33.0-only option on 0.27.0; 0.27.0-removed option on 0.28.0
    let e = fail(V0_27_0, "vllm serve m --monokernel");
    assert!(
        e.message.starts_with("vllm: error: unrecognized arguments: --monokernel"),
        "{e}"
    );
    assert!(
        e.message
            .contains("`--monokernel` is an option of vLLM 0.33.0 and later, not of 0.27.0"),
        "{e}"
    );
    assert!(parse(V0_33_0, "vllm serve m --monokernel").is_ok());
    let e = fail(V0_28_0, "vllm serve m --calculate-kv-scales");
    assert!(
        e.message.contains(&format!(
            "`--calculate-kv-scales` is an option of vLLM {} to 0.27.1",
            Release::ALL[0]
        )),
        "{e}"
    );
    let e = fail(V0_30_0, "vllm serve m --grpc-port 50051");
    assert!(e.message.contains("0.32.0 and later"), "{e}");
    // 0.33.0's --disable-X for --enable-X
    assert!(fail(V0_32_0, "vllm serve m --disable-prefix-caching")
        .message
        .contains("0.33.0 and later"));
    assert_eq!(
        ok(V0_33_0, "vllm serve m --disable-prefix-caching").unused,
        ["--disable-prefix-caching"]
    );
    // dotted keys on an unknown option are reported after the rewrite
    let e = fail(V0_33_0, "vllm serve m --foo_bar.baz 1");
    assert!(
        e.message
            .starts_with(r#"vllm: error: unrecognized arguments: --foo-bar {"baz": 1}"#),
        "{e}"
    );
    // ambiguous prefixes
    let e = fail(V0_33_0, "vllm serve m --kv-cache fp8");
    assert!(e.message.starts_with("vllm serve: error: ambiguous option: --kv-cache could match --kv-cache-memory-bytes, --kv-cache-dtype, --kv-cache-dtype-skip-layers, --kv-cache-metrics"), "{e}");
    // --task: 0.29.0+ adds vLLM's hint
    let e = fail(V0_29_0, "vllm serve m --task embed");
    assert!(e.message.contains("Hint: --task is not a vllm serve option."), "{e}");
    assert!(!fail(V0_28_0, "vllm serve m --task embed").message.contains("Hint: --task"));
    // a second positional
    assert!(fail(V0_33_0, "vllm serve m1 -tp 2 m2")
        .message
        .starts_with("vllm: error: unrecognized arguments: m2"));
}

#[test]
fn kv_cache_dtype_choices_follow_the_release() {
    let e = fail(V0_27_0, "vllm serve m --kv-cache-dtype nvfp4_4over6");
    assert!(
        e.message.starts_with(
            "vllm serve: error: argument --kv-cache-dtype: invalid choice: 'nvfp4_4over6' (choose from 'auto', 'bfloat16',"
        ),
        "{e}"
    );
    assert_eq!(
        ok(V0_28_0, "vllm serve m --kv-cache-dtype nvfp4_4over6").kv_cache_dtype,
        "nvfp4_4over6"
    );
    assert!(parse(V0_24_0, "vllm serve m --kv-cache-dtype int4_per_token_head").is_err());
    assert!(parse(V0_25_0Prefix, "vllm serve m --kv-cache-dtype int4_per_token_head").is_ok());
    assert!(parse(V0_29_0, "vllm serve m --kv-cache-dtype nvfp4_ds_mla").is_err());
    assert!(parse(V0_30_0, "vllm serve m --kv-cache-dtype nvfp4_ds_mla").is_ok());
    assert!(parse(V0_32_0, "vllm serve m --kv-cache-dtype octave_k3v4").is_err());
    assert!(parse(V0_33_0, "vllm serve m --kv-cache-dtype octave_k3v4").is_ok());
    // 0.33.0: any string passes argparse; CacheConfig's validator rejects it
    let e = fail(V0_33_0, "vllm serve m --kv-cache-dtype fp9");
    assert!(
        e.message.starts_with(
            "pydantic_core._pydantic_core.ValidationError: 1 validation error for CacheConfig\ncache_dtype\n  \
         Value error, Invalid kv_cache_dtype: 'fp9'. Valid values are: ['auto', 'float16', 'bfloat16', 'fp8', "
        ),
        "{e}"
    );
    assert!(
        e.message
            .ends_with("'nvfp4', 'nvfp4_4over6'] [type=value_error, input_value='fp9', input_type=str]"),
        "{e}"
    );
    // --dtype and --block-size
    assert_eq!(ok(V0_33_0, "vllm serve m --dtype half --block-size 32").block_size, Some(32));
    let e = fail(V0_33_0, "vllm serve m --dtype fp16");
    assert_eq!(
        e.message,
        "vllm serve: error: argument --dtype: invalid choice: 'fp16' (choose from 'auto', 'bfloat16', 'float', \
         'float16', 'float32', 'half')"
    );
    assert_eq!(
        fail(V0_33_0, "vllm serve m --block-size x").message,
        "vllm serve: error: argument --block-size: invalid int value: 'x'"
    );
    assert!(fail(V0_33_0, "vllm serve m --block-size 0")
        .message
        .contains("block_size\n  Input should be greater than 0"));
    // --chat-template-content-format's choices in every release: 0.33.0 imports its Literal through
    // `from .types import *` (renderers/chat_utils/__init__.py; types.py:354), which the first flag lists missed.
    for r in [V0_24_0, V0_32_0, V0_33_0] {
        assert_eq!(
            fail(r, "vllm serve m --chat-template-content-format xml").message,
            "vllm serve: error: argument --chat-template-content-format: invalid choice: 'xml' (choose from 'auto', \
             'openai', 'string')",
            "{r}"
        );
    }
}

#[test]
fn skip_layers_are_greedy() {
    // nargs="+" swallows the positional model: vLLM then serves its default model
    let c = ok(
        V0_33_0,
        "vllm serve --kv-cache-dtype-skip-layers 0 2 meta-llama/Llama-3.1-8B-Instruct",
    );
    assert_eq!(c.kv_cache_dtype_skip_layers, ["0", "2", "meta-llama/Llama-3.1-8B-Instruct"]);
    assert_eq!(c.model, DEFAULT_MODEL);
    let c = ok(V0_33_0, "vllm serve m --kv-cache-dtype-skip-layers 0 2 other -tp 2");
    assert_eq!(c.kv_cache_dtype_skip_layers, ["0", "2", "other"]);
    assert_eq!(c.tensor_parallel_size, 2);
    // =value is one token, commas are not split; negative numbers are values
    assert_eq!(
        ok(V0_33_0, "vllm serve m --kv-cache-dtype-skip-layers=0,2").kv_cache_dtype_skip_layers,
        ["0,2"]
    );
    assert_eq!(
        ok(V0_33_0, "vllm serve m --kv-cache-dtype-skip-layers -1 3").kv_cache_dtype_skip_layers,
        ["-1", "3"]
    );
    let e = fail(V0_33_0, "vllm serve m --kv-cache-dtype-skip-layers --enforce-eager");
    assert_eq!(
        e.message,
        "vllm serve: error: argument --kv-cache-dtype-skip-layers: expected at least one argument"
    );
    assert_eq!(
        ok(V0_33_0, "vllm serve m --kv_cache_dtype_skip_layers 1").kv_cache_dtype_skip_layers,
        ["1"]
    );
}

#[test]
fn model_option_and_positional() {
    let c = ok(V0_33_0, "vllm serve -tp 2 --model org/m --enforce-eager");
    assert_eq!((c.model.as_str(), c.tensor_parallel_size), ("org/m", 2));
    assert_eq!(c.unused, ["--enforce-eager"]);
    assert_eq!(ok(V0_33_0, "vllm serve --model=org/m").model, "org/m");
    assert_eq!(ok(V0_33_0, "vllm serve").model, DEFAULT_MODEL);
    assert!(fail(V0_33_0, "vllm serve m --model").message.contains("IndexError"));
    let e = fail(V0_33_0, "vllm serve --served-model-name x");
    assert!(
        e.message
            .starts_with("ValueError: `model` should be provided as the first positional argument"),
        "{e}"
    );
    // -- ends the options
    assert_eq!(ok(V0_33_0, "vllm serve -tp 2 -- -odd-model").model, "-odd-model");
}

#[test]
fn unused_options_are_listed_as_written() {
    let c = ok(
        V0_33_0,
        "vllm serve m --max-model-len 8192 --enforce-eager --gpu_memory_utilization=0.9 -O3 \
         --served-model-name a b --max-model 4k --no-enable-prefix-caching -cc.mode 3 \
         --chat-template 'a b' --hf-token --middleware x --middleware y",
    );
    assert_eq!(
        c.unused,
        [
            "--max-model-len 8192",
            "--enforce-eager",
            "--gpu_memory_utilization=0.9",
            "-O3",
            "--served-model-name a b",
            "--max-model 4k",
            "--no-enable-prefix-caching",
            "--chat-template 'a b'",
            "--hf-token",
            "--middleware x",
            "--middleware y",
            "-cc.mode 3",
        ]
    );
    // values are checked with the option's type and choices
    let e = fail(V0_33_0, "vllm serve m --max-num-seqs lots");
    assert_eq!(
        e.message,
        "vllm serve: error: argument --max-num-seqs: invalid int value: 'lots'"
    );
    let e = fail(V0_33_0, "vllm serve m --max-log-len lots");
    assert_eq!(
        e.message,
        "vllm serve: error: argument --max-log-len: Value lots cannot be converted to <class 'int'>."
    );
    let e = fail(V0_33_0, "vllm serve m --enforce-eager=1");
    assert_eq!(
        e.message,
        "vllm serve: error: argument --enforce-eager/--no-enforce-eager: ignored explicit argument '1'"
    );
    let e = fail(V0_33_0, "vllm serve m --enable-prefix-caching=yes");
    assert!(
        e.message
            .starts_with("vllm serve: error: argument --enable-prefix-caching/--disable-prefix-caching:"),
        "{e}"
    );
    // optional literal: the string "None" before 0.31.0, Python None from 0.31.0
    assert!(fail(V0_30_0, "vllm serve m --dcp-comm-backend None")
        .message
        .contains("invalid choice: None (choose from 'a2a', 'ag_rs', 'None')"));
    assert!(parse(V0_31_0, "vllm serve m --dcp-comm-backend None").is_ok());
    assert!(fail(V0_31_0, "vllm serve m --dcp-comm-backend x")
        .message
        .contains("(choose from 'a2a', 'ag_rs', None)"));
    // the lower-case, - → _ type of --moe-backend runs before the choice check
    assert!(parse(V0_33_0, "vllm serve m --moe-backend FlashInfer-Cutlass").is_ok());
    assert!(fail(V0_33_0, "vllm serve m --max-model-len 1.5K")
        .message
        .contains("Decimals are not allowed"));
    assert!(fail(V0_33_0, "vllm serve m --compilation-config '{'")
        .message
        .contains("1 validation error for CompilationConfig"));
    // -q takes its value glued on: -qfp8
    assert_eq!(ok(V0_33_0, "vllm serve m -qfp8").unused, ["-qfp8"]);
    assert!(fail(V0_33_0, "vllm serve m --help").message.contains("prints the help text"));
}

#[test]
fn speculative_and_hf_overrides() {
    let c = ok(
        V0_33_0,
        r#"vllm serve m --speculative-config '{"method": "eagle3", "model": "d", "num_speculative_tokens": 3}'"#,
    );
    assert_eq!(
        c.speculative_config,
        Some(SpeculativeConfig {
            method: Some("eagle3".into()),
            model: Some("d".into()),
            num_speculative_tokens: Some(3),
            ..SpeculativeConfig::default()
        })
    );
    let c = ok(V0_33_0, "vllm serve m -sc.method ngram -sc.num-speculative-tokens 4");
    assert_eq!(c.speculative_config.and_then(|s| s.num_speculative_tokens), Some(4));
    let c = ok(V0_33_0, "vllm serve m --spec-method mtp --spec-tokens 2");
    assert_eq!(
        c.speculative_config.map(|s| (s.method, s.num_speculative_tokens)),
        Some((Some("mtp".into()), Some(2)))
    );
    let e = fail(V0_33_0, "vllm serve m --spec-tokens 2 -sc.num_speculative_tokens 3");
    assert_eq!(
        e.message,
        "ValueError: --spec-tokens and --speculative-config['num_speculative_tokens'] are mutually exclusive"
    );
    assert!(fail(V0_33_0, "vllm serve m -sc.method warp")
        .message
        .contains("1 validation error for SpeculativeConfig\nmethod"));
    assert!(fail(V0_33_0, "vllm serve m -sc '[1]'")
        .message
        .contains("needs a JSON object"));
    assert_eq!(ok(V0_33_0, "vllm serve m -sc None").speculative_config, None);
    let e = fail(V0_33_0, "vllm serve m -sc '{bad'");
    assert_eq!(
        e.message,
        "vllm serve: error: argument --speculative-config/-sc: Value {bad cannot be converted to <function loads at 0x…>."
    );

    let c = ok(
        V0_33_0,
        r#"vllm serve m --hf-overrides '{"architectures": ["X"]}' --hf_overrides.max_position_embeddings 32k"#,
    );
    let hf = c.hf_overrides.expect("hf overrides");
    assert_eq!(hf.get("max_position_embeddings"), Some(&serde_json::Value::from(32000)));
    assert!(!hf.contains_key("architectures"), "the dotted dict replaces the JSON one");
    let e = fail(V0_33_0, "vllm serve m --hf-overrides max_len=3");
    assert!(e.message.starts_with("--hf-overrides 'max_len=3': not a JSON object"), "{e}");
    assert_eq!(ok(V0_33_0, "vllm serve m --hf-overrides '{}'").hf_overrides, None);
}

#[test]
fn quoting() {
    let c = ok(
        V0_33_0,
        "HF_HOME=\"/tmp/a b\" vllm serve 'org/my model' \\\n  --chat-template \"{{ x }} \\\"q\\\"\" \\\r\n  --served-model-name a\\ b",
    );
    assert_eq!(c.env, [("HF_HOME".to_string(), "/tmp/a b".to_string())]);
    assert_eq!(c.model, "org/my model");
    assert_eq!(c.unused, ["--chat-template '{{ x }} \"q\"'", "--served-model-name 'a b'"]);
    assert!(fail(V0_33_0, "vllm serve 'm").message.contains("unterminated single quote"));
    assert!(fail(V0_33_0, "vllm serve \"m").message.contains("unterminated double quote"));
    assert!(fail(V0_33_0, "vllm serve m | tee log").message.contains("shell operator `|`"));
    // The common launchers read as `vllm serve` (api_server's parser is serve's); others are named (issue 25).
    assert_eq!(
        ok(V0_33_0, "python -m vllm.entrypoints.openai.api_server --model m").model,
        "m"
    );
    assert_eq!(
        ok(V0_33_0, "docker run --gpus all -e A=1 vllm/vllm-openai:v0.10.0 m").env,
        [("A".into(), "1".into())]
    );
    assert!(fail(V0_33_0, "python serve.py")
        .message
        .contains("found `serve.py` after `python`"));
    assert!(fail(V0_33_0, "vllm chat").message.contains("`vllm chat` is not `vllm serve`"));
    assert!(fail(V0_33_0, "").message.contains("empty command line"));
    assert_eq!(ok(V0_33_0, "/usr/local/bin/vllm serve m").model, "m");
}

#[test]
fn format_round_trips() {
    let lines = [
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8 --kv-cache-dtype-skip-layers 0 sliding_window",
        "VLLM_BATCH_INVARIANT=1 VLLM_HAS_FLASHINFER_CUBIN=0 vllm serve m -dcp 2 -tp 4 --block-size 64",
        "vllm serve m --attention-config.use_trtllm_attention true --attention-config.disable_flashinfer_q_quantization true",
        r#"vllm serve m -ac '{"backend": "flashinfer", "use_non_causal": 1, "flash_attn_version": 3, "indexer_kv_dtype": "fp8"}'"#,
        "vllm serve m --attention-backend FLASHINFER --dtype half --max-model-len 8k -O3 --enforce-eager",
        r#"vllm serve m --speculative-config '{"method": "eagle", "model": "x y", "num_speculative_tokens": 5}'"#,
        r#"vllm serve m --hf-overrides '{"rope_scaling": {"type": "yarn", "factor": 4.0}}' --chat-template "it's""#,
        "vllm serve --kv-cache-dtype-skip-layers 0 2 meta-llama/Llama-3.1-8B-Instruct",
        "vllm serve m --kv-cache-dtype-skip-layers=-1",
        "vllm serve m --kv-cache-dtype-skip-layers -1 2",
        "vllm serve -tp 2 -- -odd",
        "A='x y' B= vllm serve '' --attention-backend=-x",
        "vllm serve m -ac.backend CUTLASS_MSA",
        "vllm serve m --spec-method ngram -sc.prompt_lookup_max 4",
    ];
    for r in [V0_27_0, V0_33_0] {
        for line in lines {
            let Ok(a) = parse(r, line) else { continue };
            let text = format(&a);
            assert_eq!(parse(r, &text).as_ref(), Ok(&a), "{r}: {line} → {text}");
        }
    }
    assert_eq!(format(&ServeCommand::default()), format!("vllm serve {DEFAULT_MODEL}"));
    let c = ok(V0_33_0, "VLLM_BATCH_INVARIANT=1 vllm serve m -dcp 2 --max-model-len 8192");
    assert_eq!(
        format(&c),
        "VLLM_BATCH_INVARIANT=1 vllm serve m --decode-context-parallel-size 2 --max-model-len 8192"
    );
}

/// The page's float helpers (serde_json's parser and formatter, no core float tables) agree with core's
/// correctly-rounded `str::parse`, `{:e}` and `{:.0}` on a spread of literals and values.
#[test]
fn float_helpers_agree_with_core() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut next = move || rng.next();
    for _ in 0..4_000 {
        let int = (next() % 10_000_000).to_string();
        let frac = (next() % 100_000_000).to_string();
        let exp = (next() % 45) as i64 - 22;
        let literal = match next() % 4 {
            0 => format!("{int}.{frac}"),
            1 => format!("-{int}e{exp}"),
            2 => format!(".{frac}E+{}", exp.abs()),
            _ => format!("+{int}."),
        };
        let want: f64 = literal.parse().unwrap_or(f64::NAN);
        assert_eq!(decimal_to_f64(&literal).to_bits(), want.to_bits(), "{literal}");
        let f = f64::from_bits(next() >> 1) * if next() % 2 == 0 { 1.0 } else { -1.0 };
        if f.is_finite() {
            let sci = format!("{:e}", f.abs());
            let (m, e) = sci.split_once('e').unwrap_or((&sci, "0"));
            let want_digits: String = m.chars().filter(char::is_ascii_digit).collect();
            let want = (want_digits, e.parse::<i32>().unwrap_or(0));
            let got = shortest_digits(f);
            // Core's `{:e}` breaks an exact tie between two shortest candidates upwards; Python's repr (and
            // ours) takes the even one. Otherwise they agree.
            if got != want {
                let read = |(d, x): &(String, i32)| format!("{}.{}e{x}", &d[..1], &d[1..]).parse::<f64>().ok();
                assert!(
                    got.0.len() == want.0.len() && got.1 == want.1 && read(&got) == Some(f.abs()),
                    "{f:e}: {got:?}"
                );
                assert_eq!(got.0.bytes().last().map(|d| (d - b'0') % 2), Some(0), "{f:e}: {got:?}");
            }
            assert_eq!(
                integer_text(f),
                format!("{:.0}", f.trunc()).replace("-0", "0").trim_start_matches('+'),
                "{f:e}"
            );
        }
    }
    for (text, ok) in [
        ("1e", false),
        ("1.2.3", false),
        ("e5", false),
        (".", false),
        ("1e+", false),
        ("1e+-5", false),
        ("--1", false),
        ("1.", true),
        (".5", true),
        ("1E-0", true),
        (" 7 ", true),
        ("1_000.5", true),
        ("١", false),
    ] {
        assert_eq!(py_float(text).is_some(), ok, "{text}");
    }
    assert_eq!(decimal_to_f64("1e400"), f64::INFINITY);
    assert_eq!(decimal_to_f64("-1e400"), f64::NEG_INFINITY);
    assert_eq!(decimal_to_f64("1e-400"), 0.0);
    assert_eq!(decimal_to_f64("000.000e5"), 0.0);
    assert_eq!(decimal_to_f64("1e99999999999"), f64::INFINITY);
    assert_eq!(integer_text(1e300), format!("{:.0}", 1e300));
    assert_eq!(py_float_repr(2.1992381023472203e15), "2199238102347220.2"); // Python's repr, a tie
    assert_eq!(py_float_repr(-0.0), "-0.0");
    assert_eq!(py_float_repr(0.0), "0.0");
    assert_eq!(py_float_repr(5e-324), "5e-324");
    assert_eq!(py_float_repr(f64::MAX), "1.7976931348623157e+308");
}

#[test]
fn integers_beyond_what_qpath_stores_are_named() {
    let msg = |line: &str| parse(Release::V0_33_0, line).err().map(|e| e.to_string()).unwrap_or_default();
    let big = "99999999999999999999999999999999999999999"; // beyond i128 too
    for (line, want) in [
        (
            "vllm serve m -tp 5000000000",
            "tensor_parallel_size 5000000000: qpath keeps sizes up to 2^32-1",
        ),
        (
            &format!("vllm serve m -dcp {big}") as &str,
            "decode_context_parallel_size: qpath keeps sizes up to 2^32-1",
        ),
        (
            "vllm serve m --speculative-config '{\"num_speculative_tokens\":5000000000}'",
            "num_speculative_tokens 5000000000: qpath keeps counts up to 2^32-1",
        ),
    ] {
        assert!(msg(line).contains(want), "{line}: {}", msg(line));
    }
}

#[test]
fn python_case_mapping() {
    assert_eq!(py_lower("FlashInfer-\u{212A}"), "flashinfer-k");
    assert_eq!(py_upper("fla\u{17F}hinfer"), "FLASHINFER");
    assert_eq!(py_upper("\u{DF}\u{FB03}x"), "SSFFIX");
    assert_eq!(py_lower("ÄUTO"), "Äuto");
}

#[test]
fn python_reprs() {
    assert_eq!(py_str_repr("a'b"), "\"a'b\"");
    assert_eq!(py_str_repr("a'b\""), "'a\\'b\"'");
    assert_eq!(py_str_repr("x\ny\u{1}"), "'x\\ny\\x01'");
    for (f, want) in [
        (0.5, "0.5"),
        (1.0, "1.0"),
        (1e16, "1e+16"),
        (1e-5, "1e-05"),
        (123456.789, "123456.789"),
        (-2.5e-7, "-2.5e-07"),
        (1e15, "1000000000000000.0"),
    ] {
        assert_eq!(py_float_repr(f), want);
    }
    let v: Value = super::json::loads(r#"{"a": [1, 2.5, null, true, "é"]}"#).unwrap_or(Value::Null);
    assert_eq!(py_json_dumps(&v), r#"{"a": [1, 2.5, null, true, "\u00e9"]}"#);
    assert_eq!(py_repr(&v), "{'a': [1, 2.5, None, True, 'é']}");
    assert_eq!(human_readable_int("25.6k").ok(), Some(Some(25600)));
    assert_eq!(human_readable_int("2M").ok(), Some(Some(2 << 20)));
    assert_eq!(
        human_readable_int_text("99999999999999999999999T").ok().as_deref(),
        Some("109951162777599999999998900488372224")
    );
    assert!(py_float("1_0.5").is_some() && py_float("_1").is_none() && py_float("inf").is_some() && py_float("1e").is_none());
    assert_eq!(
        truncate_repr(&py_str_repr(&"a".repeat(49))),
        format!("'{}...{}'", "a".repeat(24), "a".repeat(23))
    );
    assert_eq!(
        expand_hr_numbers(r#"{"a": 2k, "b": "3k", "c": x4k, "d": 1.5m}"#)
            .ok()
            .as_deref(),
        Some(r#"{"a": 2000, "b": "3k", "c": x4k, "d": 1500000}"#)
    );
}

/// The pieces the junk lines below are made of: options of every kind, values, quoting and shell characters.
const PIECES: &[&str] = &[
    "vllm",
    "serve",
    "m",
    "--model",
    "--model=",
    "-tp",
    "2",
    "0",
    "-1",
    "-0.5",
    "--kv-cache-dtype",
    "fp8",
    "nvfp4_4over6",
    "--kv-cache-dtype-skip-layers",
    "sliding_window",
    "-ac.backend",
    "-ac.use_trtllm_attention",
    "--attention-config",
    "{\"use_trtllm_attention\": 1}",
    "'{'",
    "true",
    "None",
    "--attention-backend",
    "FLASHINFER",
    "auto",
    "-dcp",
    "--decode_context_parallel_size=3",
    "--",
    "-",
    "-O3",
    "-O",
    "--enable-prefix-caching",
    "--disable-prefix-caching",
    "--no-enable-prefix-caching",
    "-sc.num_speculative_tokens",
    "--spec-tokens",
    "--hf-overrides",
    "{\"a\": 1}",
    "--hf_overrides.b",
    "2k",
    "1.5K",
    "--served-model-name",
    "--config",
    "x.yaml",
    "--help",
    "-h",
    "--kv",
    "-q",
    "-qfp8",
    "--foo",
    "A=1",
    "VLLM_BATCH_INVARIANT=1",
    "\"",
    "'",
    "\\",
    "\n",
    " ",
    "=",
    ".",
    "+",
    "-ac.x+",
    "a,b",
    "é",
    "\u{0}",
    "--block-size",
    "16",
    "--task",
    "--max-model-len",
    "auto",
    "--dtype",
    "half",
    "-ac.",
    "-.",
    "--.",
    "--=",
    "-=",
    "---x",
    "--model\n",
    "$HOME",
    "#",
    "|",
    "--omni",
];

#[test]
fn junk_never_panics_and_accepted_lines_round_trip() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let releases = Release::ALL;
    let mut accepted = 0;
    for i in 0..4000 {
        let r = releases[rng.below(releases.len())];
        let mut line = String::new();
        if i % 3 != 0 {
            line.push_str("vllm serve ");
        }
        if i % 7 == 0 {
            // raw bytes, lossily decoded
            let bytes: Vec<u8> = (0..rng.below(80)).map(|_| (rng.next() & 0xff) as u8).collect();
            line.push_str(&String::from_utf8_lossy(&bytes));
        } else {
            for _ in 0..rng.below(12) {
                line.push_str(PIECES[rng.below(PIECES.len())]);
                if rng.below(4) != 0 {
                    line.push(' ');
                }
            }
        }
        if let Ok(cmd) = parse(r, &line) {
            accepted += 1;
            let text = format(&cmd);
            assert_eq!(parse(r, &text).as_ref(), Ok(&cmd), "{r}: {line:?} → {text:?}");
        }
    }
    assert!(accepted > 200, "only {accepted} junk lines parsed");
    // deep, long and wide inputs: errors, not crashes or stalls
    let deep_key = format!("vllm serve m -ac{} 1", ".a".repeat(5000));
    assert!(fail(V0_33_0, &deep_key).message.starts_with("RecursionError"));
    let deep_json = format!("vllm serve m --attention-config '{}'", "[".repeat(10000));
    assert!(fail(V0_33_0, &deep_json)
        .message
        .contains("validation error for AttentionConfig"));
    // 300 levels: json.dumps and json.loads both read it (Python's limit is near 1000 frames).
    let hf = format!("vllm serve m --hf-overrides{} 1", ".x".repeat(300));
    assert!(parse(V0_33_0, &hf).is_ok(), "json.loads reads 300 levels");
    let hf = format!(
        "vllm serve m --hf-overrides{} 1",
        ".x".repeat(super::limits::MAX_JSON_DEPTH + 1)
    );
    assert!(parse(V0_33_0, &hf)
        .unwrap_err()
        .message
        .starts_with("qpath cannot model this: JSON nested deeper"));
    let wide = format!("vllm serve m{}", " -tp 2 --enforce-eager -ac.use_non_causal 1".repeat(5000));
    let c = ok(V0_33_0, &wide);
    assert_eq!((c.tensor_parallel_size, c.unused.len()), (2, 5000));
    assert!(c.attention_config.use_non_causal);
    let long_token = format!("vllm serve m --{}", "x".repeat(200_000));
    assert!(fail(V0_33_0, &long_token)
        .message
        .starts_with("vllm: error: unrecognized arguments: --xxx"));
}

/// Links, Markdown and messages carry a command line without the values of environment variables qpath does not read
/// (tokens, paths); the names stay, the values qpath reads stay, and the result still parses to the same flags.
#[test]
fn shared_command_lines_drop_unread_env_values() {
    let text = "HF_TOKEN=hf_abcSECRET VLLM_BATCH_INVARIANT=1 HF_HOME='/home/me/my cache' VLLM_HAS_FLASHINFER_CUBIN=1 \
                EMPTY= vllm serve meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8 --served-model-name 'a b'";
    let (shared, dropped) = without_unread_env(text);
    assert_eq!(dropped, ["HF_TOKEN", "HF_HOME"]);
    assert_eq!(
        shared,
        "HF_TOKEN=… VLLM_BATCH_INVARIANT=1 HF_HOME=… VLLM_HAS_FLASHINFER_CUBIN=1 EMPTY='' vllm serve \
         meta-llama/Llama-3.1-8B-Instruct --kv-cache-dtype fp8 --served-model-name 'a b'"
    );
    assert!(!shared.contains("SECRET") && !shared.contains("/home/me"), "{shared}");
    let (a, b) = (ok(Release::LATEST, text), ok(Release::LATEST, &shared));
    assert_eq!(b.env_flag("VLLM_BATCH_INVARIANT"), Ok(Some(true)));
    assert_eq!((a.kv_cache_dtype, a.model, a.unused), (b.kv_cache_dtype, b.model, b.unused));
    // format writes what parse read, and the shared form of that drops the value too.
    let formatted = format(&ok(Release::LATEST, text));
    assert!(formatted.contains("HF_TOKEN=hf_abcSECRET"), "{formatted}");
    assert!(!without_unread_env(&formatted).0.contains("SECRET"));
    // Nothing to drop: the text as written (spacing and quoting kept).
    for t in [
        "vllm  serve m",
        "VLLM_BATCH_INVARIANT=1 vllm serve m",
        "vllm serve m HF_TOKEN=x",
    ] {
        assert_eq!(without_unread_env(t), (t.to_string(), vec![]));
    }
    // Text the shell cannot split still loses the value.
    let (shared, dropped) = without_unread_env("HF_TOKEN=hf_SECRET vllm serve 'm");
    assert!(!shared.contains("SECRET") && dropped == ["HF_TOKEN"], "{shared}");
}

/// `data/vllm-field-bounds.tsv` parses, and every row's flag is an option of each release the row covers.
#[test]
fn the_field_bounds_table_parses_and_names_real_flags() {
    let bounds = super::bounds::parse_bounds(include_str!("../../../../data/vllm-field-bounds.tsv")).expect("parses");
    let rows = parse_table(FLAGS_TSV).expect("data/vllm-flags.tsv parses");
    assert!(bounds.len() >= 30, "{} rows", bounds.len());
    for r in Release::ALL {
        for b in bounds
            .iter()
            .filter(|b| super::bounds::position(r, &b.class, &b.field).is_some())
        {
            assert!(rows.iter().any(|f| f.flag == b.flag && f.covers(r)), "{} on {r}", b.flag);
        }
    }
    assert!(super::bounds::parse_bounds(
        "flag\tclass\tfield\ttype\tbounds\tfirst\tlast\tsource\n--x\tC\tx\tint\tgt=z\t0.20.0\t-\ts\n"
    )
    .unwrap_err()
    .contains("bound `gt=z`"));
}

/// The pydantic range checks of the flags qpath keeps no field for (serve/bounds.rs), with pydantic's text.
#[test]
fn out_of_range_flags_fail_with_pydantics_text() {
    let pyd = |class: &str, lines: &str| {
        let n = lines.matches("\n  Input").count() + usize::from(lines.starts_with("  Input"));
        let n = n.max(1);
        format!(
            "pydantic_core._pydantic_core.ValidationError: {n} validation error{} for {class}\n{lines}",
            if n == 1 { "" } else { "s" }
        )
    };
    // CacheConfig.gpu_memory_utilization: Field(default=0.92, gt=0, le=1): config/cache.py:66 in 0.20.0, :215 in
    // 0.33.0. argparse's type=float makes `1.5` a float; `0` becomes 0.0.
    for r in [V0_20_0, V0_33_0] {
        let e = fail(r, "vllm serve m --gpu-memory-utilization 1.5");
        assert_eq!(
            e.message,
            pyd(
                "CacheConfig",
                "gpu_memory_utilization\n  Input should be less than or equal to 1 [type=less_than_equal, input_value=1.5, input_type=float]"
            ),
            "{r}"
        );
        assert_eq!(e.token.as_deref(), Some("--gpu-memory-utilization 1.5"));
        let e = fail(r, "vllm serve m --gpu-memory-utilization=0");
        assert!(
            e.message
                .ends_with("Input should be greater than 0 [type=greater_than, input_value=0.0, input_type=float]"),
            "{r}: {e}"
        );
        ok(r, "vllm serve m --gpu-memory-utilization 1");
        // the last occurrence wins (argparse's store)
        ok(r, "vllm serve m --gpu-memory-utilization 2 --gpu-memory-utilization 0.5");
    }
    // One ValidationError for every failing field of the class, in field order: block_size (cache.py:187 in 0.33.0)
    // before gpu_memory_utilization (:215).
    let e = fail(V0_33_0, "vllm serve m --gpu-memory-utilization 3 --block-size 0");
    assert_eq!(
        e.message,
        "pydantic_core._pydantic_core.ValidationError: 2 validation errors for CacheConfig\nblock_size\n  Input should be \
         greater than 0 [type=greater_than, input_value=0, input_type=int]\ngpu_memory_utilization\n  Input should be \
         less than or equal to 1 [type=less_than_equal, input_value=3.0, input_type=float]"
    );
    assert_eq!(e.token.as_deref(), Some("--block-size 0"));
    // ParallelConfig.pipeline_parallel_size: Field(default=1, ge=1) from 0.23.0 (config/parallel.py:112); 0.22.0's is a
    // plain `int = 1`.
    ok(V0_22_0, "vllm serve m -pp 0");
    let e = fail(V0_23_0, "vllm serve m -pp 0 -tp 0");
    assert_eq!(
        e.message,
        "pydantic_core._pydantic_core.ValidationError: 2 validation errors for ParallelConfig\npipeline_parallel_size\n  \
         Input should be greater than or equal to 1 [type=greater_than_equal, input_value=0, input_type=int]\n\
         tensor_parallel_size\n  Input should be greater than or equal to 1 [type=greater_than_equal, input_value=0, \
         input_type=int]"
    );
    assert_eq!(e.token.as_deref(), Some("-pp 0"));
    // ModelConfig is built before CacheConfig (engine/arg_utils.py L2280 / L2307 in 0.33.0): its error fires first.
    // max_model_len: Field(default=None, ge=-1), config/model.py:249 in 0.33.0; `-1` / `auto` pass.
    let e = fail(V0_33_0, "vllm serve m --gpu-memory-utilization 3 --max-model-len -2");
    assert!(
        e.message
            .starts_with("pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\nmax_model_len\n"),
        "{e}"
    );
    ok(V0_33_0, "vllm serve m --max-model-len auto");
    ok(V0_33_0, "vllm serve m --max-model-len -1");
    // SchedulerConfig.watermark: Field(default=0.0, ge=0.0, lt=1.0) from 0.24.0 (config/scheduler.py:146); pydantic
    // prints the bound 1.0 as `1`.
    assert!(fail(V0_24_0, "vllm serve m --watermark 1")
        .message
        .ends_with("watermark\n  Input should be less than 1 [type=less_than, input_value=1.0, input_type=float]"));
    // LoRAConfig is built only with --enable-lora (engine/arg_utils.py L2691 in 0.33.0); config/lora.py:36.
    ok(V0_33_0, "vllm serve m --max-loras 0");
    ok(V0_33_0, "vllm serve m --max-loras 0 --enable-lora --disable-lora");
    assert!(fail(V0_33_0, "vllm serve m --max-loras 0 --enable-lora")
        .message
        .contains("for LoRAConfig\nmax_loras\n"));
    // A None-able field takes None; a nan passes pydantic-core's comparisons.
    ok(V0_33_0, "vllm serve m --mamba-block-size None");
    ok(V0_33_0, "vllm serve m --kv-cache-metrics-sample nan");
    assert!(fail(V0_33_0, "vllm serve m --kv-cache-metrics-sample inf")
        .message
        .contains("input_value=inf, input_type=float"));
}

//! `FlashInferMetadataBuilder.__init__` (`vllm/v1/attention/backends/flashinfer.py`), one method per statement group,
//! in the source's order: the group's cache dtype, the query dtypes, the decode capability, the page-size assert, the
//! decode kernel and its fallbacks, the SM90 sliding-window raise, the sinks raise, and the resolved-dtypes log line.

use super::trtllm;
use super::{fp8_of, is_nvfp4, raise, Init, Raise, Run};
use crate::attention::GroupErrorKind::{AssertionError, NotImplementedError, ValueError};
use crate::attention::{Kernel, Phases, Stage};
use crate::dtype::TorchDtype;
use crate::release::Release::*;
use crate::source;

/// What the cache-dtype step leaves: the dtype the kernels read the cache as, and the NVFP4 path.
struct Cache {
    /// `kv_cache_dtype`: a torch dtype (`uint8` for NVFP4).
    kv: TorchDtype,
    /// `is_kvcache_nvfp4`.
    nvfp4: bool,
    /// 0.32.0+: `nvfp4_fa2` (NVFP4 on the FA2 path, the SM80/SM90/SM120 families).
    nvfp4_fa2: bool,
}

impl Run<'_> {
    /// `__init__`, in the source's order. Returns the state `build()` reads.
    pub(super) fn init(&mut self) -> Result<Init, Raise> {
        let cache = self.group_cache_dtype()?;
        let (qp, qd) = self.query_dtypes(cache.kv, cache.nvfp4, cache.nvfp4_fa2);
        self.q = Phases {
            prefill: Some(qp),
            decode: Some(qd),
        };
        let can_decode = self.decode_capability(cache.nvfp4_fa2);
        self.page_size_assert(can_decode)?;
        let decode_kernel = self.decode_kernel(can_decode);
        let decode_kernel = self.xqa_fallbacks(decode_kernel);
        self.sm90_sliding_window()?;
        self.sinks_at_init(cache.nvfp4_fa2)?;
        self.resolved_dtypes_log(&cache, qp, qd, decode_kernel);
        Ok(Init {
            kv: cache.kv,
            nvfp4: cache.nvfp4,
            nvfp4_fa2: cache.nvfp4_fa2,
            decode_kernel,
        })
    }

    /// The per-group cache dtype: `if self.kv_cache_spec.kv_quant_mode != KVQuantMode.NONE:` takes the global
    /// `cache_config.cache_dtype` string ([`source::FI_QUANTIZED_GROUP`]), else `"auto"` ([`source::FI_UNQUANTIZED_GROUP`]).
    fn group_cache_dtype(&mut self) -> Result<Cache, Raise> {
        if self.g.quantized {
            self.quantized_cache()
        } else {
            self.unquantized_cache()
        }
    }

    /// The quantized branch: `self.cache_dtype = self.cache_config.cache_dtype`; `is_kvcache_nvfp4` (`== "nvfp4"` before
    /// 0.28.0, `.startswith("nvfp4")` from it); the NVFP4 gates, else `get_dtype_for_flashinfer(cache_dtype)`, which
    /// raises `ValueError(f"Unrecognized dtype: {kv_cache_dtype}")` ([`source::FI_UNRECOGNIZED_DTYPE`]).
    fn quantized_cache(&mut self) -> Result<Cache, Raise> {
        let (p, r) = (self.p, self.r());
        self.cache_dtype = p.global_kv.clone();
        let nvfp4 = is_nvfp4(r, &self.cache_dtype);
        self.t.step(
            Some(&source::FI_QUANTIZED_GROUP),
            "per-group cache dtype",
            format!(
                "kv_quant_mode != NONE: cache_dtype = the global --kv-cache-dtype {:?}",
                self.cache_dtype
            ),
        );
        if nvfp4 && r < V0_21_0 {
            // 0.20.x: `raise NotImplementedError("nvfp4 KV cache is not yet supported")` (0.20.0 flashinfer.py:625;
            // selection already refuses "nvfp4", which is not in the class list before 0.21.0).
            return Err(raise(
                NotImplementedError,
                "nvfp4 KV cache is not yet supported",
                Stage::Init,
                source::FI_NVFP4_NOT_YET,
            ));
        }
        if nvfp4 {
            let nvfp4_fa2 = self.nvfp4_gate()?;
            return Ok(Cache {
                kv: TorchDtype::Uint8,
                nvfp4,
                nvfp4_fa2,
            });
        }
        let kv = fp8_of(&self.cache_dtype).ok_or_else(|| {
            raise(
                ValueError,
                // 0.20.x's `get_fp8_dtype_for_flashinfer` says "Unrecognized FP8 dtype" (0.20.0 flashinfer.py:397).
                if r < V0_21_0 {
                    format!("Unrecognized FP8 dtype: {}", self.cache_dtype)
                } else {
                    format!("Unrecognized dtype: {}", self.cache_dtype)
                },
                Stage::Init,
                source::FI_UNRECOGNIZED_DTYPE,
            )
            .via("FlashInferMetadataBuilder.__init__ → FlashInferBackend.get_dtype_for_flashinfer")
        })?;
        Ok(Cache {
            kv,
            nvfp4: false,
            nvfp4_fa2: false,
        })
    }

    /// The unquantized branch: `self.cache_dtype = "auto"`, then the bare
    /// `assert self.kv_cache_spec.dtype == self.model_config.dtype` ([`source::FI_UNQUANTIZED_GROUP`],
    /// [`source::FI_UNQUANTIZED_ASSERT`]).
    fn unquantized_cache(&mut self) -> Result<Cache, Raise> {
        let (p, g) = (self.p, self.g);
        let model = p.model_dtype;
        self.cache_dtype = "auto".into();
        self.t.step(
            Some(&source::FI_UNQUANTIZED_GROUP),
            "per-group cache dtype",
            format!(
                "kv_quant_mode == NONE (unquantized or skipped layers): cache_dtype = \"auto\", KV dtype {}",
                g.spec_dtype
            ),
        );
        if g.spec_dtype != model {
            // `assert self.kv_cache_spec.dtype == self.model_config.dtype` (bare assert, no message).
            self.t.step(
                Some(&source::FI_UNQUANTIZED_ASSERT),
                "unquantized KV dtype must equal the model dtype",
                format!("{} != {model}: assertion fails", g.spec_dtype),
            );
            return Err(raise(AssertionError, "", Stage::Init, source::FI_UNQUANTIZED_ASSERT));
        }
        Ok(Cache {
            kv: g.spec_dtype,
            nvfp4: false,
            nvfp4_fa2: false,
        })
    }

    /// The NVFP4 gates of `__init__` ([`source::FI_NVFP4_SM100_ONLY`]): 0.21.0–0.22.x none; 0.23.0–0.24.0 raise off the
    /// SM100 family; 0.25.0+
    /// raises unless TRTLLM is usable for both phases; 0.32.0+ first takes the FA2 path on the SM80/SM90/SM120 families
    /// (`_nvfp4_kv_on_fa2()`), which raises under DCP ([`source::FI_NVFP4_FA2_DCP`]) and at head size 64
    /// ([`source::FI_NVFP4_FA2_HEAD64`]). Returns `nvfp4_fa2`.
    fn nvfp4_gate(&mut self) -> Result<bool, Raise> {
        let (p, g, r) = (self.p, self.g, self.r());
        if r < V0_25_0Prefix {
            // The sm100f raise arrived in 0.23.0 (0.23.0 flashinfer.py:627); 0.21.0–0.22.x go on to the wrappers.
            if r >= V0_23_0 && !p.is_family(100) {
                return Err(raise(
                    ValueError,
                    "--kv-cache-dtype nvfp4 requires sm100f, please try a different dtype or remove",
                    Stage::Init,
                    source::FI_NVFP4_SM100_ONLY,
                ));
            }
            return Ok(false);
        }
        if p.force_trtllm != Some(false) {
            trtllm::artifactory_warning(p, &mut self.t);
        }
        let trtllm_path_missing = p.force_trtllm == Some(false) || !trtllm::supports(p, true) || !trtllm::supports(p, false);
        let message = if r < V0_28_0 {
            "--kv-cache-dtype nvfp4 requires the SM100 trtllm-gen FlashInfer path.".to_string()
        } else {
            format!(
                "--kv-cache-dtype {} requires the SM100 trtllm-gen FlashInfer path.",
                self.cache_dtype
            )
        };
        if r >= V0_32_0 && matches!(p.major(), 8 | 9 | 12) {
            self.t.step(
                Some(&source::FI_NVFP4_FA2_DCP),
                "NVFP4 path",
                format!("{} is in family 80/90/120: NVFP4 on FA2", p.arch()),
            );
            if p.dcp > 1 {
                return Err(raise(
                    NotImplementedError,
                    "The DCP prefill wrapper cannot read NVFP4 block scales.",
                    Stage::Init,
                    source::FI_NVFP4_FA2_DCP,
                ));
            }
            if g.head_dim == 64 {
                return Err(raise(
                    NotImplementedError,
                    "fa2 prefill misreads NVFP4 at head_size 64.",
                    Stage::Init,
                    source::FI_NVFP4_FA2_HEAD64,
                ));
            }
            return Ok(true);
        }
        if trtllm_path_missing {
            return Err(raise(ValueError, message, Stage::Init, source::FI_NVFP4_SM100_ONLY));
        }
        Ok(false)
    }

    /// The query dtypes: 0.20.0–0.24.0's single `self.q_data_type` ([`source::FI_Q_DTYPE_INIT`]); from 0.25.0
    /// `self.q_data_type_prefill = self.get_q_data_type(is_prefill=True)` and the decode twin ([`source::FI_GET_Q_DTYPE`]).
    fn query_dtypes(&mut self, kv: TorchDtype, nvfp4: bool, nvfp4_fa2: bool) -> (TorchDtype, TorchDtype) {
        if self.r() < V0_25_0Prefix {
            let q = self.q_data_type_0_24(kv, nvfp4);
            return (q, q);
        }
        let qp = self.get_q_data_type(true, nvfp4_fa2);
        let qd = self.get_q_data_type(false, nvfp4_fa2);
        (qp, qd)
    }

    /// 0.20.0–0.24.0: `self.q_data_type` is the KV dtype (FP8 for NVFP4) when `can_use_trtllm` and not
    /// `disable_flashinfer_q_quantization`, else the model dtype ([`source::FI_Q_DTYPE_INIT`]).
    fn q_data_type_0_24(&mut self, kv: TorchDtype, nvfp4: bool) -> TorchDtype {
        let (p, g) = (self.p, self.g);
        let model = p.model_dtype;
        let can = trtllm::can_use(p, g.q_heads, g.kv_heads, false);
        let q = if can && !p.disable_q_quant {
            if nvfp4 {
                TorchDtype::Float8E4m3fn
            } else {
                kv
            }
        } else {
            model
        };
        let why = if !can {
            "can_use_trtllm_attention is false: the model dtype".to_string()
        } else if p.disable_q_quant {
            "disable_flashinfer_q_quantization: the model dtype".to_string()
        } else if nvfp4 {
            "TRTLLM usable and NVFP4 cache: float8_e4m3fn".to_string()
        } else {
            format!("TRTLLM usable: the group's KV dtype {kv}")
        };
        self.t.step(
            Some(&source::FI_Q_DTYPE_INIT),
            "q_data_type (one for both phases)",
            format!("{q}: {why}"),
        );
        q
    }

    /// `get_q_data_type(is_prefill)`, first match wins: disabled quantization ([`source::FI_Q_STEP_DISABLED`]); a 16-bit
    /// decode query for XQA ([`source::FI_Q_STEP_XQA_DECODE`]); an fp8* cache ([`source::FI_Q_STEP_FP8`]); NVFP4
    /// ([`source::FI_Q_STEP_NVFP4`]); else the KV spec dtype ([`source::FI_Q_STEP_SPEC_DTYPE`]). The never-released
    /// pre-fix builder read the global cache string; the fix reads the group's.
    fn get_q_data_type(&mut self, is_prefill: bool, nvfp4_fa2: bool) -> TorchDtype {
        let (p, g, r) = (self.p, self.g, self.r());
        let model = p.model_dtype;
        let ph = trtllm::phase(is_prefill);
        let rule = format!("get_q_data_type(is_prefill={})", if is_prefill { "True" } else { "False" });
        let prefix = r.is_prefix();
        // The pre-fix builder read the global string; the fix reads the group's.
        let c: String = if prefix {
            p.global_kv.clone()
        } else {
            self.cache_dtype.clone()
        };
        let reads = if prefix {
            "the global cache dtype"
        } else {
            "the group's cache dtype"
        };
        if p.disable_q_quant {
            self.t.step(
                Some(&source::FI_Q_STEP_DISABLED),
                rule,
                format!("{ph}: disable_flashinfer_q_quantization → {model}"),
            );
            return model;
        }
        let xqa_arch = p.is_cc(90) || (r >= V0_28_0 && p.is_family(120));
        if xqa_arch && !is_prefill && p.force_trtllm != Some(false) && c.starts_with("fp8") {
            self.t.step(
                Some(&source::FI_Q_STEP_XQA_DECODE),
                rule,
                format!(
                    "{ph}: {} with {reads} {c:?} and TRTLLM not forced off → {model} (XQA needs a 16-bit query)",
                    p.arch()
                ),
            );
            return model;
        }
        if c.starts_with("fp8") {
            return self.fp8_query(rule, ph, reads, &c);
        }
        if is_nvfp4(r, &c) {
            let q = if r >= V0_32_0 && nvfp4_fa2 {
                model
            } else {
                TorchDtype::Float8E4m3fn
            };
            self.t
                .step(Some(&source::FI_Q_STEP_NVFP4), rule, format!("{ph}: NVFP4 cache → {q}"));
            return q;
        }
        let q = g.spec_dtype;
        self.t.step(
            Some(&source::FI_Q_STEP_SPEC_DTYPE),
            rule,
            format!("{ph}: {reads} {c:?} → the KV spec dtype {q}"),
        );
        q
    }

    /// `get_q_data_type`'s fp8* step ([`source::FI_Q_STEP_FP8`]): the pre-fix builder quantizes on every architecture;
    /// the fix only on SM90 and the SM100 family, else the model dtype.
    fn fp8_query(&mut self, rule: String, ph: &str, reads: &str, c: &str) -> TorchDtype {
        let p = self.p;
        let fp8 = fp8_of(c).unwrap_or(TorchDtype::Float8E4m3fn);
        if self.r().is_prefix() {
            self.t.step(
                Some(&source::FI_Q_STEP_FP8),
                rule,
                format!("{ph}: {reads} {c:?} starts with fp8 → {fp8} on every architecture (the bug #47485 fixed)"),
            );
            return fp8;
        }
        let quantizes = p.is_cc(90) || p.is_family(100);
        let q = if quantizes { fp8 } else { p.model_dtype };
        self.t.step(
            Some(&source::FI_Q_STEP_FP8),
            rule,
            if quantizes {
                format!("{ph}: {reads} {c:?} on {} (SM90 / SM100 family) → {q}", p.arch())
            } else {
                format!("{ph}: {reads} {c:?} on {}, not SM90 or the SM100 family → {q}", p.arch())
            },
        );
        q
    }

    /// The decode capability, static for FULL CUDA graphs: `can_use_trtllm_attention(num_qo_heads, num_kv_heads,
    /// is_prefill=False)`, from 0.32.0 `and (not nvfp4_fa2 or is_device_capability_family(120))`
    /// ([`source::FI_DECODE_CAPABILITY`]).
    fn decode_capability(&mut self, nvfp4_fa2: bool) -> bool {
        let (p, g, r) = (self.p, self.g, self.r());
        if p.force_trtllm != Some(false) {
            trtllm::artifactory_warning(p, &mut self.t);
        }
        let can_decode = trtllm::can_use(p, g.q_heads, g.kv_heads, false);
        if r >= V0_32_0 && nvfp4_fa2 && !p.is_family(120) && can_decode {
            self.t.step(
                Some(&source::FI_DECODE_CAPABILITY),
                "can_use_trtllm_attention(decode)",
                "NVFP4 on the FA2 path decodes natively off SM12x",
            );
            return false;
        }
        self.t
            .step(Some(&source::FI_DECODE_CAPABILITY), "can_use_trtllm_attention(decode)", {
                let yes = if can_decode { "yes" } else { "no" };
                if p.force_trtllm == Some(false) {
                    format!("{yes}: use_trtllm_attention is false")
                } else if trtllm::supports(p, false) && g.q_heads.checked_rem(g.kv_heads) != Some(0) {
                    format!(
                        "{yes}: {} query heads are not a multiple of {} KV heads",
                        g.q_heads, g.kv_heads
                    )
                } else {
                    format!("{yes}: {}", trtllm::supports_reason(p, false))
                }
            });
        can_decode
    }

    /// `assert self.page_size <= 64 or (…)`, f-string `Unexpected FlashInfer page size {page_size} without trtllm-gen
    /// GQA`: from 0.24.0, pages above 64 need the TRTLLM decode with GQA, from 0.25.0 also the SM100 family
    /// ([`source::FI_PAGE_SIZE_ASSERT`]).
    fn page_size_assert(&mut self, can_decode: bool) -> Result<(), Raise> {
        let (p, g, r) = (self.p, self.g, self.r());
        // The assert arrived with the large pages in 0.24.0 (0.24.0 flashinfer.py:680).
        if r < V0_24_0 || p.page_size <= 64 {
            return Ok(());
        }
        let gqa = g.q_heads / g.kv_heads.max(1) > 1;
        let ok = if r < V0_25_0Prefix {
            can_decode && gqa
        } else {
            p.is_family(100) && can_decode && gqa
        };
        if ok {
            return Ok(());
        }
        Err(raise(
            AssertionError,
            format!("Unexpected FlashInfer page size {} without trtllm-gen GQA", p.page_size),
            Stage::Init,
            source::FI_PAGE_SIZE_ASSERT,
        ))
    }

    /// The static decode kernel: 0.20.0–0.24.0 `use_trtllm_decode_attention = can_use_trtllm` with no kernel enum
    /// ([`source::FI_DECODE_KERNEL`]); from 0.25.0 `_get_flashinfer_trtllm_api_decode_kernel()`: XQA on SM90 (0.28.0+:
    /// and the SM12x family), else trtllm-gen ([`source::FI_XQA_KERNEL_CHOICE`]).
    fn decode_kernel(&mut self, can_decode: bool) -> Option<Kernel> {
        let (p, r) = (self.p, self.r());
        let decode_kernel = if !can_decode {
            None
        } else if r < V0_25_0Prefix {
            // No kernel enum: trtllm_batch_decode_with_kv_cache(backend="auto") = trtllm-gen on major 10.
            Some(Kernel::TrtllmGen)
        } else if p.is_cc(90) || (r >= V0_28_0 && p.is_family(120)) {
            Some(Kernel::Xqa)
        } else {
            Some(Kernel::TrtllmGen)
        };
        if let Some(k) = decode_kernel {
            let cite = if r < V0_25_0Prefix {
                &source::FI_DECODE_KERNEL
            } else {
                &source::FI_XQA_KERNEL_CHOICE
            };
            self.t.step(
                Some(cite),
                "decode kernel",
                match k {
                    Kernel::Xqa => format!("{} → XQA (TRTLLM API)", if p.is_cc(90) { "SM90" } else { "SM12x" }),
                    _ => "SM100 family → trtllm-gen (TRTLLM API)".to_string(),
                },
            );
        }
        decode_kernel
    }

    /// The XQA fallbacks to native decode, each with its `logger.warning_once`: a head dim outside [16, 256] or not a
    /// multiple of 16 (0.29.0+, [`source::FI_XQA_HEAD_DIM_FALLBACK`]), then DCP (0.26.0+, [`source::FI_XQA_DCP_FALLBACK`]).
    fn xqa_fallbacks(&mut self, mut decode_kernel: Option<Kernel>) -> Option<Kernel> {
        let (p, g, r) = (self.p, self.g, self.r());
        if decode_kernel == Some(Kernel::Xqa) && r >= V0_29_0 && !(16..=256).contains(&g.head_dim) | (g.head_dim % 16 != 0) {
            self.t.warn(
                &source::FI_XQA_HEAD_DIM_FALLBACK,
                format!(
                "FlashInfer XQA decode does not support head_dim={}; reverting this KV-cache group to native FlashInfer decode.",
                g.head_dim
            ),
            );
            self.t.step(
                Some(&source::FI_XQA_HEAD_DIM_FALLBACK),
                "XQA head_dim check",
                format!("head_dim {} outside [16, 256]: native decode", g.head_dim),
            );
            decode_kernel = None;
        }
        if decode_kernel == Some(Kernel::Xqa) && r >= V0_26_0 && p.dcp > 1 {
            self.t.warn(&source::FI_XQA_DCP_FALLBACK, "FlashInfer XQA decode does not support returning LSE and therefore does not support DCP, reverting to native FlashInfer decode.");
            self.t.step(
                Some(&source::FI_XQA_DCP_FALLBACK),
                "XQA and DCP",
                format!("decode_context_parallel_size {}: native decode", p.dcp),
            );
            decode_kernel = None;
        }
        decode_kernel
    }

    /// 0.25.0–0.29.0: `NotImplementedError` when SM90 meets a layer with `window_left != -1`
    /// ([`source::FI_SM90_SLIDING_WINDOW`]).
    fn sm90_sliding_window(&mut self) -> Result<(), Raise> {
        let (p, g, r) = (self.p, self.g, self.r());
        if r >= V0_25_0Prefix && r < V0_30_0 && p.is_cc(90) && g.sliding_window.is_some() {
            return Err(raise(
                NotImplementedError,
                "FlashInfer backend on SM90 currently crashes with sliding-window attention layers. Use the default attention backend.",
                Stage::Init,
                source::FI_SM90_SLIDING_WINDOW,
            ));
        }
        Ok(())
    }

    /// Sinks: 0.20.0–0.24.0 `if has_sinks and not can_use_trtllm`; 0.25.0+ `if has_sinks and not
    /// FlashInferBackend.supports_sink()`, from 0.32.0 also under `nvfp4_fa2` ([`source::FI_SINKS_INIT`]).
    fn sinks_at_init(&mut self, nvfp4_fa2: bool) -> Result<(), Raise> {
        let (p, g, r) = (self.p, self.g, self.r());
        if !g.has_sinks {
            return Ok(());
        }
        let unsupported = if r < V0_25_0Prefix {
            !trtllm::can_use(p, g.q_heads, g.kv_heads, false)
        } else {
            (r >= V0_32_0 && nvfp4_fa2) || !trtllm::supports_sink(p)
        };
        if unsupported {
            return Err(raise(
                NotImplementedError,
                "FlashInfer backend currently does not support attention sinks, please use trtllm on blackwell or flash attention on earlier GPUs.",
                Stage::Init,
                source::FI_SINKS_INIT,
            ));
        }
        Ok(())
    }

    /// 0.25.0+: `logger.info_once("FlashInfer resolved query dtypes: prefill=%s, decode=%s, decode_backend=%s,
    /// kv_cache_dtype=%s, arch=%s", …)` ([`source::FI_RESOLVED_LOG`]).
    fn resolved_dtypes_log(&mut self, cache: &Cache, qp: TorchDtype, qd: TorchDtype, decode_kernel: Option<Kernel>) {
        if self.r() < V0_25_0Prefix {
            return;
        }
        let backend = decode_kernel.map_or("flashinfer-native", |k| k.name());
        let kv_repr = if cache.nvfp4 {
            "nvfp4".to_string()
        } else {
            cache.kv.torch_repr()
        };
        self.t.info(&source::FI_RESOLVED_LOG, format!(
            "FlashInfer resolved query dtypes: prefill={}, decode={}, decode_backend={backend}, kv_cache_dtype={kv_repr}, arch={}",
            qp.torch_repr(),
            qd.torch_repr(),
            self.p.arch()
        ));
    }
}

/* CPU feature detection: x86 through CPUID and XGETBV (the OS must save the
 * vector state, or the instructions fault), AArch64 through the auxiliary vector. */
#include "tensorplan/cost.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static uint64_t xgetbv0(void) {
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((uint64_t)hi << 32) | lo;
}

static void detect_x86(tp_cpu_features *f) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return;
    bool osxsave = (c >> 27) & 1u;
    bool avx_hw = (c >> 28) & 1u, fma_hw = (c >> 12) & 1u;
    uint64_t xcr0 = osxsave ? xgetbv0() : 0;
    bool ymm_os = (xcr0 & 0x6u) == 0x6u;         /* SSE + AVX state */
    bool zmm_os = (xcr0 & 0xe6u) == 0xe6u;       /* + opmask, ZMM_Hi256, Hi16_ZMM */
    bool amx_os = (xcr0 & 0x60000u) == 0x60000u; /* XTILECFG + XTILEDATA */
    f->avx = avx_hw && ymm_os;
    f->fma = fma_hw && ymm_os;
    unsigned max_leaf = (unsigned)__get_cpuid_max(0, NULL);
    if (max_leaf < 7) return;
    __cpuid_count(7, 0, a, b, c, d);
    f->avx2 = ((b >> 5) & 1u) && ymm_os;
    f->avx512f = ((b >> 16) & 1u) && zmm_os;
    f->avx512bw = ((b >> 30) & 1u) && zmm_os;
    f->avx512vnni = ((c >> 11) & 1u) && zmm_os;
    f->amx_bf16 = ((d >> 22) & 1u) && amx_os;
    f->amx_tile = ((d >> 24) & 1u) && amx_os;
    f->amx_int8 = ((d >> 25) & 1u) && amx_os;
    unsigned a1, b1, c1, d1;
    __cpuid_count(7, 1, a1, b1, c1, d1);
    f->avx512bf16 = ((a1 >> 5) & 1u) && zmm_os;
    (void)b1;
    (void)c1;
    (void)d1;
}
#endif

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif
#endif

void tp_cpu_features_detect(tp_cpu_features *out) {
    if (!out) return;
    memset(out, 0, sizeof *out);
#if defined(__x86_64__) || defined(__i386__)
    detect_x86(out);
    if (out->avx512f)
        out->isa = TP_CPU_ISA_AVX512;
    else if (out->avx2 && out->fma)
        out->isa = TP_CPU_ISA_AVX2;
#elif defined(__aarch64__)
    out->neon = true;
#if defined(__linux__)
    out->sve = (getauxval(AT_HWCAP) & HWCAP_SVE) != 0;
#endif
    out->isa = TP_CPU_ISA_NEON;
#endif
}

uint32_t tp_cpu_isa_floats(tp_cpu_isa isa) {
    switch (isa) {
    case TP_CPU_ISA_AVX512:
        return 16;
    case TP_CPU_ISA_AVX2:
        return 8;
    case TP_CPU_ISA_NEON:
    case TP_CPU_ISA_GENERIC:
        break;
    }
    return 4;
}

const char *tp_cpu_isa_name(tp_cpu_isa isa) {
    switch (isa) {
    case TP_CPU_ISA_AVX512:
        return "avx512";
    case TP_CPU_ISA_AVX2:
        return "avx2";
    case TP_CPU_ISA_NEON:
        return "neon";
    case TP_CPU_ISA_GENERIC:
        break;
    }
    return "generic";
}

/* Built-in int8 block-dot GEMM on AMX tiles (amx_dot.h).
 *
 * Tiles: 0 and 1 hold two groups of 16 weight rows for one block of 32 values (8 rows of 64
 * bytes: four consecutive values of each weight row side by side, the layout TDPBSSD reads),
 * 2 and 3 two groups of 16 activation rows (16 rows of 32 bytes), 4..7 the four 16 × 16 int32
 * products. Per block the four products are stored and added into a 32 × 32 float accumulator
 * scaled by the two blocks' scales (AVX-512 fused multiply-adds). */
#include "cost/amx_dot.h"

#include <string.h>

#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__)) &&      \
    !defined(TP_NO_AMX)
#define TP_HAVE_AMX 1
#include <immintrin.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#define TILE 16u
#define PANEL_BYTES (8u * 64u)                /* one weight tile: 8 rows × 64 bytes */
#define BLOCK_BYTES (2u * PANEL_BYTES + 128u) /* two tiles + 32 float scales */

size_t tp_amx_dot_packed_bytes(uint32_t n, uint32_t k) {
    return (size_t)(n / TP_AMX_BLOCK) * (k / TP_Q8_BLOCK) * BLOCK_BYTES;
}

void tp_amx_dot_pack(const tp_int8_dot_job *j, void *packed) {
    uint32_t kb_n = j->k / TP_Q8_BLOCK;
    unsigned char *p = packed;
    for (uint32_t nb = 0; nb < j->n / TP_AMX_BLOCK; nb++)
        for (uint32_t kb = 0; kb < kb_n; kb++) {
            unsigned char *blk = p + ((size_t)nb * kb_n + kb) * BLOCK_BYTES;
            for (uint32_t t = 0; t < 2; t++)
                for (uint32_t r = 0; r < 8; r++)
                    for (uint32_t c = 0; c < TILE; c++)
                        for (uint32_t e = 0; e < 4; e++) {
                            size_t row = (size_t)nb * TP_AMX_BLOCK + t * TILE + c;
                            blk[t * PANEL_BYTES + r * 64 + c * 4 + e] =
                                (unsigned char)j->w[row * j->k + kb * TP_Q8_BLOCK + 4 * r + e];
                        }
            float *s = (float *)(blk + 2 * PANEL_BYTES);
            for (uint32_t c = 0; c < TP_AMX_BLOCK; c++)
                s[c] = j->sw[((size_t)nb * TP_AMX_BLOCK + c) * kb_n + kb];
        }
}

#ifdef TP_HAVE_AMX
#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18

static bool amx_granted;
static pthread_once_t amx_once = PTHREAD_ONCE_INIT;
static void request_amx(void) {
    amx_granted = syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0;
}

bool tp_amx_dot_available(const tp_cpu_features *f) {
    if (!f || !f->amx_tile || !f->amx_int8 || !f->avx512f) return false;
    (void)pthread_once(&amx_once, request_amx);
    return amx_granted;
}

typedef struct tile_config {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} tile_config;

#define TARGET_AMX __attribute__((target("amx-tile,amx-int8,avx512f")))

TARGET_AMX static void load_config(void) {
    tile_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    for (int t = 0; t < 2; t++) { /* weights: 8 rows of 64 bytes */
        cfg.rows[t] = 8;
        cfg.colsb[t] = 64;
    }
    for (int t = 2; t < 4; t++) { /* activations: 16 rows of 32 bytes */
        cfg.rows[t] = 16;
        cfg.colsb[t] = 32;
    }
    for (int t = 4; t < 8; t++) { /* products: 16 rows of 16 int32 */
        cfg.rows[t] = 16;
        cfg.colsb[t] = 64;
    }
    _tile_loadconfig(&cfg);
}

/* acc[h*16 + i][t*16 ..] += prod[i][..] · sa(row) · sw(weight row), for one 16 × 16 product. */
TARGET_AMX static void scale_add(float *acc, const int32_t *prod, const float *sa, size_t sa_step,
                                 const float *sw) {
    __m512 w = _mm512_loadu_ps(sw);
    for (uint32_t i = 0; i < TILE; i++) {
        __m512 p = _mm512_cvtepi32_ps(_mm512_load_si512((const void *)(prod + i * TILE)));
        __m512 s = _mm512_mul_ps(w, _mm512_set1_ps(sa[i * sa_step]));
        _mm512_store_ps(acc + i * TP_AMX_BLOCK,
                        _mm512_fmadd_ps(p, s, _mm512_load_ps(acc + i * TP_AMX_BLOCK)));
    }
}

TARGET_AMX void tp_amx_dot_run(const tp_int8_dot_job *j, const void *packed, uint32_t n0,
                               uint32_t n1) {
    _Alignas(64) float acc[TP_AMX_BLOCK * TP_AMX_BLOCK];
    _Alignas(64) int32_t prod[4][TILE * TILE];
    uint32_t kb_n = j->k / TP_Q8_BLOCK;
    load_config();
    for (uint32_t nb = n0 / TP_AMX_BLOCK; nb < n1 / TP_AMX_BLOCK; nb++)
        for (uint32_t mb = 0; mb < j->m / TP_AMX_BLOCK; mb++) {
            memset(acc, 0, sizeof acc);
            const int8_t *a0 = j->a + (size_t)mb * TP_AMX_BLOCK * j->k;
            const float *sa0 = j->sa + (size_t)mb * TP_AMX_BLOCK * kb_n;
            for (uint32_t kb = 0; kb < kb_n; kb++) {
                const unsigned char *blk =
                    (const unsigned char *)packed + ((size_t)nb * kb_n + kb) * BLOCK_BYTES;
                const int8_t *a = a0 + (size_t)kb * TP_Q8_BLOCK;
                _tile_loadd(2, a, (long)j->k);
                _tile_loadd(3, a + (size_t)TILE * j->k, (long)j->k);
                _tile_loadd(0, blk, 64);
                _tile_loadd(1, blk + PANEL_BYTES, 64);
                _tile_zero(4);
                _tile_zero(5);
                _tile_zero(6);
                _tile_zero(7);
                _tile_dpbssd(4, 2, 0);
                _tile_dpbssd(5, 2, 1);
                _tile_dpbssd(6, 3, 0);
                _tile_dpbssd(7, 3, 1);
                _tile_stored(4, prod[0], 64);
                _tile_stored(5, prod[1], 64);
                _tile_stored(6, prod[2], 64);
                _tile_stored(7, prod[3], 64);
                const float *sw = (const float *)(blk + 2 * PANEL_BYTES);
                for (uint32_t q = 0; q < 4; q++) {
                    uint32_t h = q / 2, t = q % 2;
                    scale_add(acc + h * TILE * TP_AMX_BLOCK + t * TILE, prod[q],
                              sa0 + (size_t)h * TILE * kb_n + kb, kb_n, sw + t * TILE);
                }
            }
            for (uint32_t r = 0; r < TP_AMX_BLOCK; r++)
                memcpy(j->c + ((size_t)mb * TP_AMX_BLOCK + r) * j->n + (size_t)nb * TP_AMX_BLOCK,
                       acc + r * TP_AMX_BLOCK, TP_AMX_BLOCK * sizeof(float));
        }
    _tile_release();
}
#else
bool tp_amx_dot_available(const tp_cpu_features *f) {
    (void)f;
    return false;
}

void tp_amx_dot_run(const tp_int8_dot_job *j, const void *packed, uint32_t n0, uint32_t n1) {
    (void)j, (void)packed, (void)n0, (void)n1;
}
#endif

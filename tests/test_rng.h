/* A deterministic random number generator for property tests (splitmix64): seed it by
 * assigning rng_state, then draw with rnd() / rnd_below(n). One state per test program. */
#ifndef TP_TEST_RNG_H
#define TP_TEST_RNG_H

#include <stdint.h>

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static inline uint64_t rnd(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* uniform-ish in [0, n); 0 when n is 0 */
static inline uint64_t rnd_below(uint64_t n) {
    return n ? rnd() % n : 0;
}

#endif

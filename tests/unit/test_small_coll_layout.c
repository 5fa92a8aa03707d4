/* Unit tests of the small-message kernels' area (kernels/small_coll.h),
 * which the kernels and the NCCL backend both compute from one header, on
 * every rank count the path serves (2..NCORE_SMALL_MAX_RANKS): the regions
 * follow one another without overlap inside the area, every slot starts on
 * 16 bytes, each holds the largest call its kernel is given, and the
 * sizes, computed in 32 bits (a 64-bit division is a long subroutine in a
 * kernel), are those of the same formulas in 64 bits. No GPU: the header
 * is plain C. */
#include <stdint.h>
#include <stdio.h>

#include "harness.h"
#include "../../kernels/small_coll.h"

typedef unsigned long long u64;

/* ceil(a / b) * m, in 64 bits. */
static u64 ceil_times(u64 a, u64 b, u64 m) { return (a + b - 1) / b * m; }

TEST(sizes_in_32_bits_are_those_in_64) {
  for (int n = 2; n <= NCORE_SMALL_MAX_RANKS; n++) {
    CHECK_EQ(ncore_small_oneshot_max(n), NCORE_SMALL_ONESHOT_TOTAL / (u64)n / 16 * 16);
    CHECK_EQ(ncore_small_ll_max(n), NCORE_SMALL_LL_TOTAL / (u64)n / 16 * 16);
    CHECK_EQ(ncore_small_twoshot_slot(n),
             n < 3 ? 0 : (NCORE_SMALL_TWOSHOT_MAX / (u64)n + 15) / 16 * 16);
  }
}

TEST(regions_follow_one_another_inside_the_area) {
  for (int n = 2; n <= NCORE_SMALL_MAX_RANKS; n++) {
    /* flags of both rounds, then the epochs, then the data */
    CHECK(NCORE_SMALL_FLAGS_OFFSET(1) + NCORE_SMALL_FLAGS_BYTES <= NCORE_SMALL_EPOCH_OFFSET);
    CHECK(NCORE_SMALL_EPOCH_OFFSET + 8ull * NCORE_SMALL_MAX_BLOCKS <= NCORE_SMALL_DATA_OFFSET);
    CHECK_EQ(ncore_small_in1(n, 0, 0), NCORE_SMALL_DATA_OFFSET);
    /* each region's slots, parity-major, end where the next begins */
    CHECK_EQ(ncore_small_in1(n, 1, n - 1) + ncore_small_oneshot_max(n), ncore_small_in2(n, 0, 0));
    CHECK_EQ(ncore_small_in2(n, 1, n - 1) + ncore_small_twoshot_slot(n), ncore_small_res(n, 0, 0));
    CHECK_EQ(ncore_small_res(n, 1, n - 1) + ncore_small_twoshot_slot(n), ncore_small_ll(n, 0, 0));
    CHECK_EQ(ncore_small_ll(n, 1, n - 1) + 2 * ncore_small_ll_max(n), ncore_small_area_bytes(n));
    for (int p = 0; p < 2; p++)
      for (int q = 0; q < n; q++) {
        CHECK_EQ(ncore_small_in1(n, p, q) % 16, 0);
        CHECK_EQ(ncore_small_in2(n, p, q) % 16, 0);
        CHECK_EQ(ncore_small_res(n, p, q) % 16, 0);
        CHECK_EQ(ncore_small_ll(n, p, q) % 16, 0);
      }
  }
}

TEST(each_slot_holds_the_largest_call_of_its_kernel) {
  for (int n = 2; n <= NCORE_SMALL_MAX_RANKS; n++) {
    /* one-shot: every rank's whole input in one slot each */
    CHECK(ncore_small_oneshot_max(n) * (u64)n <= NCORE_SMALL_ONESHOT_TOTAL);
    /* LL: a 16-byte line per 8 bytes of input */
    CHECK(ncore_small_ll_max(n) / 8 * 16 <= 2 * ncore_small_ll_max(n));
    if (n < 3) continue;
    /* two-shot: a slice of the largest call, in 16-byte vectors (the
     * kernel's unit), fits one slot */
    CHECK(ceil_times(ceil_times(NCORE_SMALL_TWOSHOT_MAX, 16, 1), (u64)n, 16) <=
          ncore_small_twoshot_slot(n));
  }
}

/* The grid by size: one block at least, 4 KiB a block in LL form (a line
 * of 8 bytes for each of the block's threads), 8 KiB by flags, at most
 * NCORE_SMALL_MAX_BLOCKS. */
TEST(grid_by_size) {
  CHECK_EQ(ncore_small_grid(0, 1), 1);
  CHECK_EQ(ncore_small_grid(8, 1), 1);
  CHECK_EQ(ncore_small_grid(8ull * NCORE_SMALL_THREADS, 1), 1);
  CHECK_EQ(ncore_small_grid(8ull * NCORE_SMALL_THREADS + 1, 1), 2);
  CHECK_EQ(ncore_small_grid(8192, 0), 1);
  CHECK_EQ(ncore_small_grid(8193, 0), 2);
  CHECK_EQ(ncore_small_grid(1 << 20, 0), 128);
  CHECK_EQ(ncore_small_grid(64ull << 20, 1), NCORE_SMALL_MAX_BLOCKS);
}

HARNESS_MAIN

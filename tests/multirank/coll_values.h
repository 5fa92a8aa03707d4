/* Element values for collective tests that every dtype represents exactly
 * (including float8 e5m2, whose integers above 8 step by 2), so expected
 * results can be computed in double and compared exactly. */
#ifndef NCORE_TESTS_COLL_VALUES_H
#define NCORE_TESTS_COLL_VALUES_H

#include <ncore.h>

/* Values every dtype holds exactly (unsigned ones too: all >= 0). */
static const double COLL_PLAIN_VALUES[13] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16};

/* A value for rank r, block b, element i of a data-movement collective. */
static inline double coll_plain(int r, int b, size_t i) {
  return COLL_PLAIN_VALUES[((size_t)r * 5 + (size_t)b * 3 + i) % 13];
}

/* The input of rank r (of n) at element i for a reduction with op:
 * SUM / PROD: 1 or 2 (sums <= 8, products <= 16: exact everywhere);
 * MIN / MAX: 0..8; AVG: k + s_r with sum_r s_r = 0, so the average is k;
 * k is 1 or 2 so that every partial sum (up to 4 ranks) stays exact in
 * float8 e5m2, whatever order the backend adds in. */
static inline double coll_input(ncore_redop_t op, int r, int n, size_t i) {
  switch (op) {
    case NCORE_SUM:
    case NCORE_PROD:
      return 1 + (double)(((size_t)r + i) % 2);
    case NCORE_MIN:
    case NCORE_MAX:
      return (double)(((size_t)r * 5 + i * 3) % 9);
    default: { /* AVG */
      double k = 1 + (double)(i % 2);
      int paired = n - n % 2; /* ranks that cancel in +1/-1 pairs */
      double s = r >= paired ? 0 : (r % 2 == 0 ? 1 : -1);
      return k + s;
    }
  }
}

/* The exact result of op over ranks 0..n-1 at element i. */
static inline double coll_expected(ncore_redop_t op, int n, size_t i) {
  double acc = coll_input(op, 0, n, i);
  for (int r = 1; r < n; r++) {
    double v = coll_input(op, r, n, i);
    switch (op) {
      case NCORE_PROD: acc *= v; break;
      case NCORE_MIN: acc = v < acc ? v : acc; break;
      case NCORE_MAX: acc = v > acc ? v : acc; break;
      default: acc += v; break;
    }
  }
  return op == NCORE_AVG ? acc / n : acc;
}

static inline const char *coll_op_name(ncore_redop_t op) {
  static const char *names[5] = {"sum", "prod", "max", "min", "avg"};
  return op >= 0 && op < 5 ? names[op] : "custom";
}

#endif

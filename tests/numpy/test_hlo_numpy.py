#!/usr/bin/python3
"""Self-test of the NumPy reference (the hlo_numpy package) against
hand-computed values, without xtune.
Run: /usr/bin/python3 tests/numpy/test_hlo_numpy.py
"""

import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hlo_numpy as H  # noqa: E402


def run(text, *args):
    return H.evaluate(H.parse_module(text), list(args))


class RoundingTest(unittest.TestCase):
    def test_bf16(self):
        x = np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, 255.5, 256.5, 3.4e38,
                      -0.0, np.inf, np.nan, 1 + 2 ** -7], dtype=np.float32)
        r = H.round_bf16(x)
        self.assertEqual(r[:5].tolist(), [1.0, 1 + 2 ** -6, 256.0, 256.0,
                                          np.inf])
        self.assertTrue(np.signbit(r[5]) and r[5] == 0)
        self.assertEqual(r[6], np.inf)
        self.assertTrue(np.isnan(r[7]))
        self.assertEqual(r[8], 1 + 2 ** -7)

    def test_f16_through_f32(self):
        r = H.round_float(np.array([2049.0, 2051.0, 65519.0, 65520.0, 3e-8]),
                          "f16")
        self.assertEqual(r.tolist()[:4], [2048.0, 2052.0, 65504.0, np.inf])
        self.assertEqual(r[4], np.float16(2 ** -24))


class ElementwiseTest(unittest.TestCase):
    def test_int_division(self):
        a = np.array([7, -7, 7, -7, -2 ** 31, -2 ** 31, 5, 0], np.int32)
        b = np.array([2, 2, -2, -2, -1, 0, 0, 0], np.int32)
        self.assertEqual(H.binary("divide", a, b, "s32").tolist(),
                         [3, -3, -3, 3, -2 ** 31, -1, -1, -1])
        self.assertEqual(H.binary("remainder", a, b, "s32").tolist(),
                         [1, -1, 1, -1, 0, -2 ** 31, 5, 0])
        u = np.array([7, 5], np.uint32)
        z = np.array([0, 0], np.uint32)
        self.assertEqual(H.binary("divide", u, z, "u32").tolist(),
                         [2 ** 32 - 1] * 2)
        self.assertEqual(H.binary("remainder", u, z, "u32").tolist(), [7, 5])
        m = np.array([-2 ** 63], np.int64)
        self.assertEqual(H.binary("divide", m, np.array([-1]), "s64").tolist(),
                         [-2 ** 63])

    def test_wrap(self):
        a = np.array([127, -128], np.int8)
        self.assertEqual(H.binary("add", a, np.array([1, -1], np.int8),
                                  "s8").tolist(), [-128, 127])
        self.assertEqual(H.unary("negate", np.array([-2 ** 31], np.int32),
                                 "s32", "s32").tolist(), [-2 ** 31])

    def test_convert_saturates(self):
        f = np.array([3e9, -3e9, np.nan, 2.7, -2.7, np.inf], np.float32)
        self.assertEqual(H.convert(f, "f32", "s32").tolist(),
                         [2 ** 31 - 1, -2 ** 31, 0, 2, -2, 2 ** 31 - 1])
        self.assertEqual(H.convert(np.array([300.0, -5.0]), "f64",
                                   "u8").tolist(), [255, 0])
        self.assertEqual(H.convert(np.array([1e19, -1e19]), "f64",
                                   "s64").tolist(), [2 ** 63 - 1, -2 ** 63])
        self.assertEqual(H.convert(np.array([300, -129], np.int32), "s32",
                                   "s8").tolist(), [44, 127])

    def test_nan_max_min(self):
        a = np.array([np.nan, 1.0], np.float32)
        b = np.array([1.0, np.nan], np.float32)
        self.assertTrue(np.isnan(H.binary("maximum", a, b, "f32")).all())
        self.assertTrue(np.isnan(H.binary("minimum", a, b, "f32")).all())

    def test_total_order(self):
        a = np.array([-np.nan, -np.inf, -0.0, 0.0, np.inf], np.float32)
        a[0] = -abs(a[0])
        b = np.roll(a, -1)
        lt = H.compare(a[:-1], b[:-1], "f32", "LT", "TOTALORDER")
        self.assertTrue(lt.all())
        self.assertFalse(H.compare(a, a, "f32", "LT", "TOTALORDER").any())
        nan = np.array([np.nan], np.float32)
        self.assertTrue(H.compare(nan, nan, "f32", "EQ", "TOTALORDER")[0])
        self.assertFalse(H.compare(nan, nan, "f32", "EQ", "")[0])

    def test_round_afz_and_sign(self):
        x = np.array([0.5, -0.5, 2.5, -2.5, 0.49999997], np.float32)
        self.assertEqual(H.unary("round-nearest-afz", x, "f32",
                                 "f32").tolist(), [1, -1, 3, -3, 0])
        self.assertEqual(H.unary("round-nearest-even", x, "f32",
                                 "f32").tolist(), [0, 0, 2, -2, 0])


class DataMovementTest(unittest.TestCase):
    def test_pad(self):
        x = np.array([[0, 1, 2, 3]], np.float32)
        r = H.pad(x, np.float32(9), [(0, 0, 0), (-2, -3, 1)])
        self.assertEqual(r.tolist(), [[1, 9]])
        r = H.pad(x, np.float32(9), [(1, 0, 0), (1, 1, 1)])
        self.assertEqual(r.tolist(), [[9] * 9, [9, 0, 9, 1, 9, 2, 9, 3, 9]])

    def test_bitcast_layouts(self):
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        col = H.Shape("f32", (2, 3), (0, 1))
        r = H.bitcast(x, col, H.Shape("f32", (6,), (0,)))
        self.assertEqual(r.tolist(), [0, 3, 1, 4, 2, 5])
        r = H.bitcast(x, H.Shape("f32", (2, 3), (1, 0)),
                      H.Shape("f32", (3, 2), (0, 1)))
        self.assertEqual(r.tolist(), x.T.tolist())

    def test_dot_dims(self):
        rng = np.random.default_rng(0)
        a = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
        b = rng.standard_normal((2, 5, 4, 6)).astype(np.float32)
        r = H.dot(a, b, "f32", "f32", H.Shape("f32", (2, 4, 3, 6)),
                  [0, 2], [3], [0, 2], [1])
        want = np.einsum("bixy,byxj->bxij", a.astype(np.float64),
                         b.astype(np.float64))
        np.testing.assert_allclose(r, want, rtol=1e-6)


class ModuleTest(unittest.TestCase):
    def test_parse_forms_and_reduce(self):
        text = """
        // comment
        HloModule m, entry_computation_layout={(f16[4]{0})->f16[]}
        add { x = f16[] parameter(0) /* c */ y = f16[] parameter(1)
              ROOT s = f16[] add(x, y), metadata={op_name="}{\\"//"} }
        main {
          p = f16[4]{0} parameter(0)
          z = f16[] constant(0)
          r = f16[] reduce(f16[4]{0} %p, z),
              dimensions={0}, to_apply=%add
        }
        """
        x = np.array([2048, 1, 1, 1], np.float16)
        # 2048 + 1 rounds to 2048 each step in f16 (sequential order).
        self.assertEqual(float(run(text, x)), 2048.0)

    def test_variadic_argmax(self):
        text = """
        HloModule m
        am (a: f32[], ai: s32[], b: f32[], bi: s32[]) -> (f32[], s32[]) {
          a = f32[] parameter(0)
          ai = s32[] parameter(1)
          b = f32[] parameter(2)
          bi = s32[] parameter(3)
          gt = pred[] compare(a, b), direction=GT
          v = f32[] select(gt, a, b)
          i = s32[] select(gt, ai, bi)
          ROOT t = (f32[], s32[]) tuple(v, i)
        }
        ENTRY main (p: f32[2,3]) -> (f32[2], s32[2]) {
          p = f32[2,3] parameter(0)
          io = s32[2,3] iota(), iota_dimension=1
          ninf = f32[] constant(-inf)
          zero = s32[] constant(0)
          ROOT r = (f32[2], s32[2]) reduce(p, io, ninf, zero),
              dimensions={1}, to_apply=am
        }
        """
        p = np.array([[1, 5, 2], [7, 0, 3]], np.float32)
        v, i = run(text, p)
        self.assertEqual(v.tolist(), [5, 7])
        self.assertEqual(i.tolist(), [1, 0])

    def test_shape_mismatch_is_reported(self):
        text = "HloModule m\nENTRY e {\n p = f32[2] parameter(0)\n" \
               " ROOT b = f32[3] add(p, p)\n}\n"
        with self.assertRaises(H.EvaluationError):
            run(text, np.zeros(2, np.float32))


if __name__ == "__main__":
    unittest.main()

"""Tests of bench_plan.py and sass_counts.py, the GPU scripts' logic that needs no GPU.
Run: python3 test/gpu/test_bench_plan.py (test/native/cuda_gpu_scripts.test.ts does, in npm test)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_plan as bp  # noqa: E402
import sass_counts  # noqa: E402

MiB = 2**20


class DecodePlan(unittest.TestCase):
    def test_kv_bytes_by_hand(self):
        # Llama-3-8B decode, B16 ctx 8192: 2 (K, V) x 16 x 8192 x 8 heads x 128 x 2 B = 512 MiB.
        self.assertEqual(bp.decode_kv_bytes(16, 8192, 8, 128), 512 * MiB)
        self.assertEqual(bp.decode_io_bytes(16, 32, 128), 2 * 16 * 32 * 128 * 2)

    def test_judged_only_at_4x_l2(self):
        l2 = 50 * MiB  # H100 / H200 L2
        self.assertTrue(bp.decode_judged(200 * MiB, l2)[0])
        ok, why = bp.decode_judged(199 * MiB, l2)
        self.assertFalse(ok)
        self.assertIn("L2-resident", why)

    def test_every_listed_shape_is_judged_on_a_64_mib_l2(self):
        for name, B, ctx, page, H, Hkv, D in bp.DECODE_SHAPES:
            self.assertTrue(bp.decode_judged(bp.decode_kv_bytes(B, ctx, Hkv, D), 64 * MiB)[0], name)
        groups = {H // Hkv for _, _, _, _, H, Hkv, _ in bp.DECODE_SHAPES}
        self.assertEqual(groups, {1, 2, 4, 5, 8})  # both decode paths: CUDA cores <= 2 < tensor cores
        names = {s[0] for s in bp.DECODE_SHAPES}
        self.assertTrue(set(bp.DECODE_QUICK) <= names)

    def test_pool_copies(self):
        # 256 MiB pools on a 50 MiB L2: 1 + ceil(100 / 256) = 2 copies.
        self.assertEqual(bp.pool_copies(256 * MiB, 50 * MiB, 100 * 2**30), 2)
        # 30 MiB pools: 1 + ceil(100 / 30) = 5 copies, so 4 other launches (120 MiB) sit between two uses.
        self.assertEqual(bp.pool_copies(30 * MiB, 50 * MiB, 100 * 2**30), 5)
        # Not enough memory for even 2 copies within half the free memory: skipped.
        self.assertEqual(bp.pool_copies(3 * 2**30, 50 * MiB, 10 * 2**30), 0)
        with self.assertRaises(ValueError):
            bp.pool_copies(0, 50 * MiB, 2**30)

    def test_launches_per_sample(self):
        self.assertEqual(bp.launches_per_sample(2.0), 10)          # 20 ms / 2 ms
        self.assertEqual(bp.launches_per_sample(0.001), 500)       # capped
        self.assertEqual(bp.launches_per_sample(50.0), 1)          # one long launch
        self.assertEqual(bp.launches_per_sample(3.0, multiple_of=4), 8)  # ceil(6.67) = 7 -> 8
        self.assertEqual(bp.launches_per_sample(0.0), 500)

    def test_summarize(self):
        s = bp.summarize([5.0, 1.0, 3.0, 2.0])
        self.assertEqual(s["median_ms"], 2.5)
        self.assertEqual(s["samples"], 4)
        self.assertEqual(bp.summarize([4.0, 1.0, 9.0])["median_ms"], 4.0)
        with self.assertRaises(ValueError):
            bp.summarize([])

    def test_flash_flops(self):
        # N = 2: non-causal 4 scores, causal 3 (2 * 3 / 2).
        self.assertEqual(bp.flash_flops(1, 1, 2, 8, False), 4 * 4 * 8)
        self.assertEqual(bp.flash_flops(1, 1, 2, 8, True), 4 * 3 * 8)


SASS = """
        code for sm_90
                Function : _ZN9attnscope4cuda16flash_fwd_kernelE
        .headerflags    @"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/                   LDGSTS.E.BYPASS.128 [R3], desc[UR4][R4.64] ;
        /*0020*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0030*/                   LDSM.16.M88.4 R8, [R2] ;
        /*0040*/                   HMMA.16816.F32.BF16 R12, R8, R6, R12 ;
        /*0050*/              @!P0 STL [R1], R12 ;
        /*0060*/                   MUFU.EX2 R5, R5 ;
        /*0070*/               @P1 BRA 0x30 ;
        /*0080*/                   LDL R12, [R1] ;
        /*0090*/                   EXIT ;
                Function : _ZN9attnscope4cuda25paged_decode_merge_kernelE
        /*0000*/                   LDG.E R2, desc[UR4][R2.64] ;
        /*0010*/                   STG.E [R4.64], R2 ;
        /*0020*/                   EXIT ;
"""


class SassCounts(unittest.TestCase):
    def test_counts_and_main_loop(self):
        f = sass_counts.parse(SASS)
        flash = f["_ZN9attnscope4cuda16flash_fwd_kernelE"]
        self.assertEqual(flash["instructions"], 10)
        self.assertEqual(flash["total"]["HMMA"], 1)
        self.assertEqual(flash["total"]["STL"], 1)
        self.assertEqual(flash["total"]["LDL"], 1)
        # The loop is 0x30..0x70: LDSM, HMMA, STL, MUFU.EX2 inside; the LDL after it is not.
        self.assertEqual(flash["mainLoop"]["LDSM"], 1)
        self.assertEqual(flash["mainLoop"]["STL"], 1)
        self.assertEqual(flash["mainLoop"]["LDL"], 0)
        self.assertEqual(flash["mainLoop"]["LDGSTS"], 0)
        merge = f["_ZN9attnscope4cuda25paged_decode_merge_kernelE"]
        self.assertIsNone(merge["mainLoop"])
        self.assertEqual(merge["total"]["LDG"], 1)

    def test_nvdisasm_labels(self):
        text = """Function : k
.L_x_3:
        /*0100*/                   HMMA.16816.F32 R4, R8, R6, R4 ;
        /*0110*/                   BRA `(.L_x_3) ;
"""
        self.assertEqual(sass_counts.parse(text)["k"]["mainLoop"]["HMMA"], 1)


if __name__ == "__main__":
    unittest.main()

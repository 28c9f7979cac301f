
@CPU: AMD EPYC, ISA: avx512, Threads: 2, L2: 1024 KiB, L3: 32 MiBþ{
  tmp_0 = f32[32,256]{1,0} parameter(0)
  tmp_1 = f32[256,512]{1,0} parameter(1)
  tmp_2 = f32[32,512]{1,0} dot(f32[32,256]{1,0} tmp_0, f32[256,512]{1,0} tmp_1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  tmp_3 = f32[512]{0} parameter(2)
  tmp_4 = f32[32,512]{1,0} broadcast(f32[512]{0} tmp_3), dimensions={1}
  tmp_5 = f32[32,512]{1,0} add(f32[32,512]{1,0} tmp_2, f32[32,512]{1,0} tmp_4)
  tmp_6 = f32[] constant({...})
  tmp_7 = f32[32,512]{1,0} broadcast(f32[] tmp_6), dimensions={}
  tmp_8 = f32[] constant(1)
  tmp_9 = f32[32,512]{1,0} broadcast(f32[] tmp_8), dimensions={}
  tmp_10 = f32[] constant({...})
  tmp_11 = f32[32,512]{1,0} broadcast(f32[] tmp_10), dimensions={}
  tmp_12 = f32[] constant({...})
  tmp_13 = f32[32,512]{1,0} broadcast(f32[] tmp_12), dimensions={}
  tmp_14 = f32[32,512]{1,0} multiply(f32[32,512]{1,0} tmp_5, f32[32,512]{1,0} tmp_5)
  tmp_15 = f32[32,512]{1,0} multiply(f32[32,512]{1,0} tmp_14, f32[32,512]{1,0} tmp_5)
  tmp_16 = f32[32,512]{1,0} multiply(f32[32,512]{1,0} tmp_13, f32[32,512]{1,0} tmp_15)
  tmp_17 = f32[32,512]{1,0} add(f32[32,512]{1,0} tmp_5, f32[32,512]{1,0} tmp_16)
  tmp_18 = f32[32,512]{1,0} multiply(f32[32,512]{1,0} tmp_11, f32[32,512]{1,0} tmp_17)
  tmp_19 = f32[32,512]{1,0} tanh(f32[32,512]{1,0} tmp_18)
  tmp_20 = f32[32,512]{1,0} add(f32[32,512]{1,0} tmp_9, f32[32,512]{1,0} tmp_19)
  tmp_21 = f32[32,512]{1,0} multiply(f32[32,512]{1,0} tmp_7, f32[32,512]{1,0} tmp_20)
  ROOT tmp_22 = f32[32,512]{1,0} multiply(f32[32,512]{1,0} tmp_5, f32[32,512]{1,0} tmp_21)
}Jปัส>
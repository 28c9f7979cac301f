"È
XCUDA: 8.0, Cores: 108, GPU clock: 1.41 GHz, Memory bandwidth: 1555 GB/s, L2 cache: 40 MBÒ{
  tmp_0 = f16[1,16,17,3]{3,2,1,0} parameter(0)
  tmp_1 = f16[16,51]{1,0} bitcast(f16[1,16,17,3]{3,2,1,0} tmp_0)
  tmp_2 = s8[16,17,3]{2,1,0} parameter(1)
  tmp_3 = s8[51,16]{0,1} bitcast(s8[16,17,3]{2,1,0} tmp_2)
  tmp_4 = f16[51,16]{0,1} convert(s8[51,16]{0,1} tmp_3)
  tmp_5 = f16[16,16]{1,0} dot(f16[16,51]{1,0} tmp_1, f16[51,16]{0,1} tmp_4), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT tmp_6 = f16[1,16,16]{2,1,0} bitcast(f16[16,16]{1,0} tmp_5)
}J€øŠ    (08
#line 1 "gemm.cu"
XT_DEVICE void xt_load_a(XT_IN(uint16_t) xt_p0, XT_IN(int8_t) xt_p1, int64_t xt_bi, int64_t xt_r0, int64_t xt_c0, int64_t xt_k_end, float* xt_r) {
  #pragma unroll
  for (int xt_i = 0; xt_i < 8; ++xt_i)
   {
    const int64_t xt_e = xt_tid() + (int64_t)xt_i * 128;
    float xt_v = 0.0f;
    const int64_t xt_mi = xt_r0 + xt_e / 32;
    const int64_t xt_ki = xt_c0 + xt_e % 32;
    if (xt_e < 1024 && xt_mi < 16 && xt_ki < xt_k_end) {
      const int64_t lin0 = (xt_mi) * 51 + xt_ki;
      const auto v1 = xt_h2f(XT_G(xt_p0)[(((lin0 / 51) % 16)) * 51 + (((lin0 / 3) % 17)) * 3 + ((lin0 / 1) % 3)]);
      xt_v = (float)(v1);
    }
    xt_r[xt_i] = xt_v;
  }
}
XT_DEVICE void xt_load_b(XT_IN(uint16_t) xt_p0, XT_IN(int8_t) xt_p1, int64_t xt_bi, int64_t xt_r0, int64_t xt_c0, int64_t xt_k_end, float* xt_r) {
  #pragma unroll
  for (int xt_i = 0; xt_i < 8; ++xt_i)
   {
    const int64_t xt_e = xt_tid() + (int64_t)xt_i * 128;
    float xt_v = 0.0f;
    const int64_t xt_ki = xt_r0 + xt_e / 32;
    const int64_t xt_ni = xt_c0 + xt_e % 32;
    if (xt_e < 1024 && xt_ki < xt_k_end && xt_ni < 16) {
      const int64_t lin2 = xt_ki + (xt_ni) * 51;
      const auto v3 = (int64_t)XT_G(xt_p1)[(((lin2 / 51) % 16)) * 51 + (((lin2 / 3) % 17)) * 3 + ((lin2 / 1) % 3)];
      const auto v4 = xt_round_h((float)(v3));
      xt_v = (float)(v4);
    }
    xt_r[xt_i] = xt_v;
  }
}
XT_KERNEL(128) xt_kernel(XT_IN(uint16_t) xt_p0, XT_IN(int8_t) xt_p1, XT_OUT(uint16_t) xt_out) {
  XT_SHARED(float, xt_as, 1024);
  XT_SHARED(float, xt_bs, 1024);
  int64_t xt_blk = xt_bid();
  const int64_t xt_tile_n = xt_blk % 1; xt_blk /= 1;
  const int64_t xt_tile_m = xt_blk % 1; xt_blk /= 1;
  const int64_t xt_split = xt_blk % 1;
  const int64_t xt_bi = xt_blk / 1;
  const int64_t xt_m0 = xt_tile_m * 32, xt_n0 = xt_tile_n * 32;
  const int64_t xt_k_begin = xt_split * 64;
  const int64_t xt_k_end = xt_k_begin + 64 < 51 ? xt_k_begin + 64 : 51;
  const int xt_tx = xt_tid() % 16, xt_ty = xt_tid() / 16;
  float xt_acc[8];
  #pragma unroll
  for (int xt_i = 0; xt_i < 8; ++xt_i) xt_acc[xt_i] = 0.0f;
  float xt_ra[8], xt_rb[8];
  xt_load_a(xt_p0, xt_p1, xt_bi, xt_m0, xt_k_begin, xt_k_end, xt_ra);
  xt_load_b(xt_p0, xt_p1, xt_bi, xt_k_begin, xt_n0, xt_k_end, xt_rb);
  #pragma unroll
  for (int xt_i = 0; xt_i < 8; ++xt_i) {
    const int64_t xt_e = xt_tid() + (int64_t)xt_i * 128;
    if (xt_e < 1024) XT_S(xt_as)[xt_e] = xt_ra[xt_i];
  }
  #pragma unroll
  for (int xt_i = 0; xt_i < 8; ++xt_i) {
    const int64_t xt_e = xt_tid() + (int64_t)xt_i * 128;
    if (xt_e < 1024) XT_S(xt_bs)[xt_e] = xt_rb[xt_i];
  }
  for (int64_t xt_k0 = xt_k_begin; xt_k0 < xt_k_end; xt_k0 += 32) {
    XT_SYNC();
    const bool xt_has_next = xt_k0 + 32 < xt_k_end;
    #pragma unroll 4
    for (int xt_kk = 0; xt_kk < 32; ++xt_kk)
     {
      float xt_av[4], xt_bv[2];
      #pragma unroll
      for (int xt_i = 0; xt_i < 4; ++xt_i) xt_av[xt_i] = XT_S(xt_as)[(xt_ty + xt_i * 8) * 32 + xt_kk];
      #pragma unroll
      for (int xt_j = 0; xt_j < 2; ++xt_j) xt_bv[xt_j] = XT_S(xt_bs)[xt_kk * 32 + xt_tx + xt_j * 16];
      #pragma unroll
      for (int xt_i = 0; xt_i < 4; ++xt_i)
      #pragma unroll
        for (int xt_j = 0; xt_j < 2; ++xt_j)
          xt_acc[xt_i * 2 + xt_j] += xt_av[xt_i] * xt_bv[xt_j];
    }
    XT_SYNC();
    if (xt_has_next) {
      xt_load_a(xt_p0, xt_p1, xt_bi, xt_m0, xt_k0 + 32, xt_k_end, xt_ra);
      xt_load_b(xt_p0, xt_p1, xt_bi, xt_k0 + 32, xt_n0, xt_k_end, xt_rb);
      #pragma unroll
      for (int xt_i = 0; xt_i < 8; ++xt_i) {
        const int64_t xt_e = xt_tid() + (int64_t)xt_i * 128;
        if (xt_e < 1024) XT_S(xt_as)[xt_e] = xt_ra[xt_i];
      }
      #pragma unroll
      for (int xt_i = 0; xt_i < 8; ++xt_i) {
        const int64_t xt_e = xt_tid() + (int64_t)xt_i * 128;
        if (xt_e < 1024) XT_S(xt_bs)[xt_e] = xt_rb[xt_i];
      }
    }
  }
  #pragma unroll
  for (int xt_i = 0; xt_i < 4; ++xt_i)
  #pragma unroll
  for (int xt_j = 0; xt_j < 2; ++xt_j)
   {
    const int64_t xt_mi = xt_m0 + xt_ty + xt_i * 8;
    const int64_t xt_ni = xt_n0 + xt_tx + xt_j * 16;
    if (xt_mi < 16 && xt_ni < 16) {
      const float xt_accv = xt_acc[xt_i * 2 + xt_j];
      XT_G(xt_out)[(xt_mi) * 16 + xt_ni] = xt_f2h(xt_accv);
    }
  }
}
#ifdef XT_EMULATOR
extern "C" void xt_emu_entry(const XtEmuBuffer* b) {
  xt_kernel(XtG<const uint16_t>(&b[0]), XtG<const int8_t>(&b[1]), XtG<uint16_t>(&b[2]));
}
#endif

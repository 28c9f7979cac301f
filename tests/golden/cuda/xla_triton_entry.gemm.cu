#line 1 "gemm.cu"
XT_DEVICE int xt_swz_a(int xt_r, int xt_c) {
  return xt_r * 32 + ((xt_c ^ ((xt_r / 2) % 4)) << 3);
}
XT_DEVICE int xt_swz_b(int xt_r, int xt_c) {
  return xt_r * 32 + ((xt_c ^ ((xt_r / 2) % 4)) << 3);
}
XT_DEVICE void xt_load_a(XT_IN(uint16_t) xt_p0, XT_IN(int8_t) xt_p1, int64_t xt_bi, int64_t xt_r0, int64_t xt_k0, int64_t xt_k_end, uint32_t* xt_r) {
  #pragma unroll
  for (int xt_i = 0; xt_i < 4; ++xt_i)
   {
    const int64_t xt_p = xt_tid() + (int64_t)xt_i * 128;
    uint32_t xt_word = 0;
    const int64_t xt_mi = xt_r0 + xt_p / 16;
    #pragma unroll
    for (int xt_h = 0; xt_h < 2; ++xt_h) {
      const int64_t xt_ki = xt_k0 + (xt_p % 16) * 2 + xt_h;
      if (xt_p < 512 && xt_mi < 16 && xt_ki < xt_k_end) {
        const int64_t lin0 = (xt_mi) * 51 + xt_ki;
        const auto v1 = xt_h2f(XT_G(xt_p0)[(((lin0 / 51) % 16)) * 51 + (((lin0 / 3) % 17)) * 3 + ((lin0 / 1) % 3)]);
        xt_word |= (uint32_t)xt_f2h(v1) << (16 * xt_h);
      }
    }
    xt_r[xt_i] = xt_word;
  }
}
XT_DEVICE void xt_load_b(XT_IN(uint16_t) xt_p0, XT_IN(int8_t) xt_p1, int64_t xt_bi, int64_t xt_r0, int64_t xt_k0, int64_t xt_k_end, uint32_t* xt_r) {
  #pragma unroll
  for (int xt_i = 0; xt_i < 4; ++xt_i)
   {
    const int64_t xt_p = xt_tid() + (int64_t)xt_i * 128;
    uint32_t xt_word = 0;
    const int64_t xt_ni = xt_r0 + xt_p / 16;
    #pragma unroll
    for (int xt_h = 0; xt_h < 2; ++xt_h) {
      const int64_t xt_ki = xt_k0 + (xt_p % 16) * 2 + xt_h;
      if (xt_p < 512 && xt_ni < 16 && xt_ki < xt_k_end) {
        const int64_t lin2 = xt_ki + (xt_ni) * 51;
        const auto v3 = (int64_t)XT_G(xt_p1)[(((lin2 / 51) % 16)) * 51 + (((lin2 / 3) % 17)) * 3 + ((lin2 / 1) % 3)];
        const auto v4 = xt_round_h((float)(v3));
        xt_word |= (uint32_t)xt_f2h(v4) << (16 * xt_h);
      }
    }
    xt_r[xt_i] = xt_word;
  }
}
XT_KERNEL(128) xt_kernel(XT_IN(uint16_t) xt_p0, XT_IN(int8_t) xt_p1, XT_OUT(uint16_t) xt_out) {
  XT_SHARED(uint16_t, xt_as, 1024);
  XT_SHARED(uint16_t, xt_bs, 1024);
  int64_t xt_blk = xt_bid();
  const int64_t xt_tile_n = xt_blk % 1; xt_blk /= 1;
  const int64_t xt_tile_m = xt_blk % 1; xt_blk /= 1;
  const int64_t xt_split = xt_blk % 1;
  const int64_t xt_bi = xt_blk / 1;
  const int64_t xt_m0 = xt_tile_m * 32, xt_n0 = xt_tile_n * 32;
  const int64_t xt_k_begin = xt_split * 64;
  const int64_t xt_k_end = xt_k_begin + 64 < 51 ? xt_k_begin + 64 : 51;
  XT_SHARED_VIEW(uint32_t, xt_as32, xt_as);
  XT_SHARED_VIEW(uint32_t, xt_bs32, xt_bs);
  const int xt_g = xt_lane() / 4, xt_t = xt_lane() % 4;
  const int xt_l7 = xt_lane() & 7, xt_l8 = (xt_lane() >> 3) & 1, xt_l16 = xt_lane() >> 4;
  const int xt_wm0 = (xt_warp() / 2) * 16, xt_wn0 = (xt_warp() % 2) * 16;
  float xt_acc[8];
  #pragma unroll
  for (int xt_i = 0; xt_i < 8; ++xt_i) xt_acc[xt_i] = 0.0f;
  uint32_t xt_ra[4], xt_rb[4];
  xt_load_a(xt_p0, xt_p1, xt_bi, xt_m0, xt_k_begin, xt_k_end, xt_ra);
  xt_load_b(xt_p0, xt_p1, xt_bi, xt_n0, xt_k_begin, xt_k_end, xt_rb);
  #pragma unroll
  for (int xt_i = 0; xt_i < 4; ++xt_i) {
    const int xt_w = xt_tid() + xt_i * 128;
  if (xt_w < 512) {
    const int xt_rr = (int)xt_w / 16, xt_x = (int)xt_w % 16;
    XT_S(xt_as32)[(xt_swz_a(xt_rr, xt_x >> 2) >> 1) + (xt_x & 3)] = xt_ra[xt_i];
  }
  }
  #pragma unroll
  for (int xt_i = 0; xt_i < 4; ++xt_i) {
    const int xt_w = xt_tid() + xt_i * 128;
  if (xt_w < 512) {
    const int xt_rr = (int)xt_w / 16, xt_x = (int)xt_w % 16;
    XT_S(xt_bs32)[(xt_swz_b(xt_rr, xt_x >> 2) >> 1) + (xt_x & 3)] = xt_rb[xt_i];
  }
  }
  const int xt_buf = 0;
  for (int64_t xt_k0 = xt_k_begin; xt_k0 < xt_k_end; xt_k0 += 32) {
    const bool xt_has_next = xt_k0 + 32 < xt_k_end;
    XT_SYNC();  // the step's tiles are in for every thread; the last step's buffers are free
    #pragma unroll
    for (int xt_kk = 0; xt_kk < 32; xt_kk += 16) {
      uint32_t xt_fa[1][4], xt_fb[2][2];
      #pragma unroll
      for (int xt_i = 0; xt_i < 1; ++xt_i) {
        XT_LDMATRIX_X4(xt_fa[xt_i], xt_as, xt_swz_a(xt_wm0 + xt_i * 16 + xt_l7 + xt_l8 * 8, (xt_kk >> 3) + xt_l16));
      }
      #pragma unroll
      for (int xt_j = 0; xt_j < 2; ++xt_j) {
        XT_LDMATRIX_X2(xt_fb[xt_j], xt_bs, xt_swz_b(xt_wn0 + xt_j * 8 + xt_l7, (xt_kk >> 3) + xt_l8));
      }
      #pragma unroll
      for (int xt_i = 0; xt_i < 1; ++xt_i)
      #pragma unroll
        for (int xt_j = 0; xt_j < 2; ++xt_j)
          XT_MMA_M16N8K16_F16(&xt_acc[(xt_i * 2 + xt_j) * 4], xt_fa[xt_i], xt_fb[xt_j], &xt_acc[(xt_i * 2 + xt_j) * 4]);
    }
    XT_SYNC();
    if (xt_has_next) {
      xt_load_a(xt_p0, xt_p1, xt_bi, xt_m0, xt_k0 + 32, xt_k_end, xt_ra);
      xt_load_b(xt_p0, xt_p1, xt_bi, xt_n0, xt_k0 + 32, xt_k_end, xt_rb);
      #pragma unroll
      for (int xt_i = 0; xt_i < 4; ++xt_i) {
        const int xt_w = xt_tid() + xt_i * 128;
      if (xt_w < 512) {
        const int xt_rr = (int)xt_w / 16, xt_x = (int)xt_w % 16;
        XT_S(xt_as32)[(xt_swz_a(xt_rr, xt_x >> 2) >> 1) + (xt_x & 3)] = xt_ra[xt_i];
      }
      }
      #pragma unroll
      for (int xt_i = 0; xt_i < 4; ++xt_i) {
        const int xt_w = xt_tid() + xt_i * 128;
      if (xt_w < 512) {
        const int xt_rr = (int)xt_w / 16, xt_x = (int)xt_w % 16;
        XT_S(xt_bs32)[(xt_swz_b(xt_rr, xt_x >> 2) >> 1) + (xt_x & 3)] = xt_rb[xt_i];
      }
      }
    }
  }
  #pragma unroll
  for (int xt_x = 0; xt_x < 8; ++xt_x) {
    const int xt_i = xt_x / 8, xt_j = (xt_x / 4) % 2, xt_c = xt_x % 4;
    const int64_t xt_mi = xt_m0 + xt_wm0 + xt_i * 16 + xt_g + (xt_c / 2) * 8;
    const int64_t xt_ni = xt_n0 + xt_wn0 + xt_j * 8 + xt_t * 2 + (xt_c % 2);
    if (xt_mi < 16 && xt_ni < 16) {
      const float xt_accv = xt_acc[xt_x];
      XT_G(xt_out)[(xt_mi) * 16 + xt_ni] = xt_f2h(xt_accv);
    }
  }
}
#ifdef XT_EMULATOR
extern "C" void xt_emu_entry(const XtEmuBuffer* b) {
  xt_kernel(XtG<const uint16_t>(&b[0]), XtG<const int8_t>(&b[1]), XtG<uint16_t>(&b[2]));
}
#endif

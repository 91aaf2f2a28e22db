// File: fdlibm_sincos.h
// The fdlibm minimax coefficients of sin and cos on |x| <= pi/4 (k_sin.c, k_cos.c; Sun
// Microsystems, freely redistributable), shared by the RoPE kernel's sin/cos table
// (kernel/sincos_table.h) and the normal sampler's Box-Muller turn (random/normal_sampler.h):
//   |sin x - (x + x^3 P(x^2))| < 2^-58 |x|,   |cos x - (1 - x^2/2 + x^4 Q(x^2))| < 2^-58,
// with P(z) = S1 + z S2 + ... + z^5 S6 and Q(z) = C1 + ... + z^5 C6. Only constants live here:
// each user evaluates the polynomials in its own order (its error budget depends on that order).
#pragma once

namespace ropecheck::fdlibm {

inline constexpr double kS1 = -1.66666666666666324348e-01, kS2 = 8.33333333332248946124e-03,
                        kS3 = -1.98412698298579493134e-04, kS4 = 2.75573137070700676789e-06,
                        kS5 = -2.50507602534068634195e-08, kS6 = 1.58969099521155010221e-10;
inline constexpr double kC1 = 4.16666666666666019037e-02, kC2 = -1.38888888888741095749e-03,
                        kC3 = 2.48015872894767294178e-05, kC4 = -2.75573143513906633035e-07,
                        kC5 = 2.08757232129817482790e-09, kC6 = -1.13596475577881948265e-11;

}  // namespace ropecheck::fdlibm

/**
 * Trigonometry from + − × ÷ only. Math.sin, Math.atan2 and friends are
 * "implementation-approximated" in ECMAScript and may differ in the last bit
 * between engines; the demo images must not, so the phantom uses these
 * polynomial versions (accurate to about 1e-6, plenty for drawing).
 */

const PI = 3.141592653589793;
const TWO_PI = 6.283185307179586;
const HALF_PI = 1.5707963267948966;

/** sin(x) for any finite x. */
export function dsin(x: number): number {
  // Reduce to [-π, π], then to [-π/2, π/2] with sin(π − x) = sin(x).
  let r = x - TWO_PI * Math.round(x / TWO_PI);
  if (r > HALF_PI) r = PI - r;
  else if (r < -HALF_PI) r = -PI - r;
  const r2 = r * r;
  // Taylor series to x^11: error < 6e-8 on [-π/2, π/2].
  return r * (1 + r2 * (-1 / 6 + r2 * (1 / 120 + r2 * (-1 / 5040 + r2 * (1 / 362880 + r2 * (-1 / 39916800))))));
}

export function dcos(x: number): number {
  return dsin(x + HALF_PI);
}

/** atan(z) for z in [0, 1]: odd minimax polynomial, error about 1e-5 rad. */
function atanUnit(z: number): number {
  const z2 = z * z;
  return z * (0.99997726 + z2 * (-0.33262347 + z2 * (0.19354346 + z2 * (-0.11643287 + z2 * (0.05265332 + z2 * -0.0117212)))));
}

/** atan2(y, x) in (−π, π]; 0 at the origin. */
export function datan2(y: number, x: number): number {
  const ax = x < 0 ? -x : x;
  const ay = y < 0 ? -y : y;
  if (ax === 0 && ay === 0) return 0;
  let a = ax >= ay ? atanUnit(ay / ax) : HALF_PI - atanUnit(ax / ay);
  if (x < 0) a = PI - a;
  return y < 0 ? -a : a;
}

/** Degrees to radians. */
export function rad(degrees: number): number {
  return (degrees * PI) / 180;
}

function clamp(x: number, lo: number, hi: number): number {
  return x < lo ? lo : x > hi ? hi : x;
}

/** Cubic smoothstep from 0 (x ≤ e0) to 1 (x ≥ e1). */
export function smoothstep(e0: number, e1: number, x: number): number {
  const t = clamp((x - e0) / (e1 - e0), 0, 1);
  return t * t * (3 - 2 * t);
}

/**
 * Standard normal distribution helpers with close to double precision:
 * the quantile function (Wichura 1988, Algorithm AS 241 "PPND16", the same
 * coefficients as CPython's `statistics.NormalDist.inv_cdf`, written as the
 * shortest literals of the same doubles), and erfc from a
 * positive-term series (x < 2) or a Lentz continued fraction (x ≥ 2).
 */

/** Φ⁻¹(p): the z with P(Z ≤ z) = p. ±Infinity at 0 and 1, NaN outside [0, 1]. */
export function normalQuantile(p: number): number {
  if (Number.isNaN(p) || p < 0 || p > 1) return NaN;
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    const num = (((((((2509.0809287301227 * r + 33430.57558358813) * r + 67265.7709270087) * r
      + 45921.95393154987) * r + 13731.69376550946) * r + 1971.5909503065513) * r
      + 133.14166789178438) * r + 3.3871328727963665) * q;
    const den = (((((((5226.495278852854 * r + 28729.085735721943) * r + 39307.89580009271) * r
      + 21213.794301586597) * r + 5394.196021424751) * r + 687.1870074920579) * r
      + 42.31333070160091) * r + 1.0);
    return num / den;
  }
  let r = Math.sqrt(-Math.log(q <= 0 ? p : 1 - p));
  let num: number;
  let den: number;
  if (r <= 5) {
    r -= 1.6;
    num = (((((((0.0007745450142783414 * r + 0.022723844989269184) * r + 0.2417807251774506) * r
      + 1.2704582524523684) * r + 3.6478483247632045) * r + 5.769497221460691) * r
      + 4.630337846156546) * r + 1.4234371107496835);
    den = (((((((1.0507500716444169e-09 * r + 0.0005475938084995345) * r + 0.015198666563616457) * r
      + 0.14810397642748008) * r + 0.6897673349851) * r + 1.6763848301838038) * r
      + 2.053191626637759) * r + 1.0);
  } else {
    r -= 5;
    num = (((((((2.0103343992922881e-07 * r + 2.7115555687434876e-05) * r + 0.0012426609473880784) * r
      + 0.026532189526576124) * r + 0.29656057182850487) * r + 1.7848265399172913) * r
      + 5.463784911164114) * r + 6.657904643501103);
    den = (((((((2.0442631033899397e-15 * r + 1.421511758316446e-07) * r + 1.8463183175100548e-05) * r
      + 0.0007868691311456133) * r + 0.014875361290850615) * r + 0.1369298809227358) * r
      + 0.599832206555888) * r + 1.0);
  }
  const x = num / den;
  return q < 0 ? -x : x;
}

/** Complementary error function. */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < 2) {
    // erf(x) = 2/√π · e^{−x²} · Σ 2ⁿ x^{2n+1} / (1·3·…·(2n+1)): all terms positive, no cancellation.
    let term = x;
    let sum = x;
    for (let n = 1; n < 200 && term > sum * 1e-17; n++) {
      term *= (2 * x * x) / (2 * n + 1);
      sum += term;
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * Math.exp(-x * x) * sum;
  }
  // erfc(x) = e^{−x²}/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))), modified Lentz.
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < 500; n++) {
    const a = n / 2;
    d = x + a * d;
    d = Math.abs(d) < tiny ? tiny : d;
    c = x + a / c;
    c = Math.abs(c) < tiny ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / (Math.sqrt(Math.PI) * f);
}

/** Φ(z) = P(Z ≤ z). */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

/** Upper tail of χ² with 1 degree of freedom: P(X ≥ x) = erfc(√(x/2)). */
export function chiSquare1Sf(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x <= 0) return 1;
  return erfc(Math.sqrt(x / 2));
}

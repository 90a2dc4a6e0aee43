import { describe, expect, it } from 'vitest';
import { buildCsp, validateCspOrigin } from '../../../../src/core/security/csp.ts';

function directives(csp: string): Map<string, string[]> {
  return new Map(csp.split(';').map((d) => {
    const [k, ...v] = d.trim().split(/\s+/);
    return [k!, v];
  }));
}

describe('content security policy', () => {
  it('allows only the app origin by default', () => {
    const d = directives(buildCsp());
    expect(d.get('default-src')).toEqual(["'self'"]);
    expect(d.get('connect-src')).toEqual(["'self'"]);
    expect(d.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(d.get('worker-src')).toEqual(["'self'"]);
    expect(d.get('object-src')).toEqual(["'none'"]);
    // No wildcard and no remote host anywhere.
    expect(buildCsp()).not.toMatch(/\*|https?:/);
  });

  it('adds configured origins to connect-src only', () => {
    const d = directives(buildCsp({ connectSrc: ['https://models.hospital.local', 'http://10.0.0.5:8000'] }));
    expect(d.get('connect-src')).toEqual(["'self'", 'https://models.hospital.local', 'http://10.0.0.5:8000']);
    expect(d.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
  });

  it('refuses anything broader than an origin', () => {
    expect(() => validateCspOrigin('models.local')).toThrow(/not a URL/);
    expect(() => validateCspOrigin('ftp://x.local')).toThrow(/https:\/\/ or http:\/\//);
    expect(() => validateCspOrigin('https://x.local/path')).toThrow(/origin only/);
    expect(validateCspOrigin('https://x.local/')).toBe('https://x.local');
  });
});

export interface Layer {
  readonly name: string;
  readonly paths: readonly string[];
  readonly what: string;
}
export declare const LAYERS: readonly Layer[];
export declare const ALLOWED_UPWARD: readonly { readonly from: string; readonly to: string; readonly why: string }[];
export declare function layerIndex(path: string): number;
export declare function layerViolation(from: string, to: string): string | null;

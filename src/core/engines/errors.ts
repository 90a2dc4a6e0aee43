/** Engine errors with codes the UI can act on. */
import { NeuroEvalError } from '../errors.ts';

export type EngineErrorCode =
  | 'ENGINE_UNREACHABLE'
  | 'ENGINE_HTTP'
  | 'ENGINE_BAD_RESPONSE'
  | 'ENGINE_MODEL_MISSING'
  | 'ENGINE_NOT_LOADED'
  | 'ENGINE_DEVICE_LOST'
  | 'ENGINE_UNSUPPORTED';

/** An engine failed; `code` says how, and the message says what to do. */
export class EngineError extends NeuroEvalError {
  override readonly name = 'EngineError';
  readonly engineCode: EngineErrorCode;
  constructor(engineCode: EngineErrorCode, message: string, cause?: unknown) {
    super(engineCode === 'ENGINE_UNSUPPORTED' ? 'UNSUPPORTED' : 'INTERNAL', message, cause === undefined ? {} : { cause });
    this.engineCode = engineCode;
  }
}

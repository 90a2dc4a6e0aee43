/** Engine errors with codes the UI can act on: defined in core/errors.ts so they survive worker boundaries. */
export { EngineError, isDeviceLost, type EngineErrorCode } from '../errors.ts';

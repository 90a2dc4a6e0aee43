/**
 * Where on-prem endpoints (with their API keys) are kept: this browser's
 * database only. A module of its own so pages that only count endpoints
 * (Home) need not load the model host. Changing it loses stored endpoints.
 */
export const ENDPOINTS_SETTING = 'engines.endpoints';

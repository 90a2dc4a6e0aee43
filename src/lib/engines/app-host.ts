/**
 * The tab's one {@link ModelHost}: every run, scoring pass and model check
 * of this tab gets its engines from here.
 */
import { repos } from '../storage/app-db.ts';
import { ModelHost, type EndpointSecrets } from './model-host.ts';
import { ENDPOINTS_SETTING } from './endpoint-setting.ts';

export { ENDPOINTS_SETTING };

export const modelHost = new ModelHost({
  endpointSecrets: async (endpointId) => {
    const list = await (await repos()).settings.get<(EndpointSecrets & { id: string })[]>(ENDPOINTS_SETTING, []);
    return list.find((e) => e.id === endpointId);
  },
});

// A customer's settings and blocked values (docs/keeping-people-apart.md), which the administrator reads and replaces
// whole. What they change is applied by the node and search services (./policy.ts).
import { type BlockRule, checkRules } from './blocklist';
import { DomainError } from './errors';
import { type CustomerSettings, DEFAULT_SETTINGS } from './model';
import { ianaTimeZone } from './timezone';
import type { ProtectionStore } from './ports/protections';

export class CustomerSettingsService {
  constructor(private readonly store: ProtectionStore) {}

  async settings(customerId: string): Promise<CustomerSettings> {
    return (await this.store.customerPolicy(customerId)).settings;
  }

  /** Replaces both settings; an absent one takes its default. 400 for a name that is no IANA time zone, storing nothing. */
  putSettings(customerId: string, given: Partial<CustomerSettings>): Promise<CustomerSettings> {
    const timezone = ianaTimeZone(given.timezone ?? DEFAULT_SETTINGS.timezone);
    if (timezone === undefined) {
      throw new DomainError('validation_failed', 'timezone must be an IANA time-zone name, such as Europe/Berlin.', [
        { path: '/body/timezone', message: 'is not an IANA time-zone name' },
      ]);
    }
    return this.store.putSettings(customerId, { requireToken: given.requireToken ?? DEFAULT_SETTINGS.requireToken, timezone });
  }

  async blocklist(customerId: string): Promise<BlockRule[]> {
    return (await this.store.customerPolicy(customerId)).blockRules;
  }

  /** Replaces the rules; 400 (and nothing stored) when one cannot be stored, such as a pattern that could backtrack. */
  putBlocklist(customerId: string, rules: BlockRule[]): Promise<BlockRule[]> {
    checkRules(rules);
    return this.store.putBlocklist(customerId, rules);
  }
}

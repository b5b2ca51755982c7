// Pure mapping from a MaxMind City record to the seven $geoip_* person properties
// PostHog uses in flag evaluation (SPEC §4.2), and client-address normalization.
import type { CityResponse } from 'mmdb-lib';

export type GeoProperties = Partial<Record<
  '$geoip_city_name' | '$geoip_country_name' | '$geoip_country_code' | '$geoip_continent_name' |
  '$geoip_continent_code' | '$geoip_postal_code' | '$geoip_time_zone', string>>;

export function geoProperties(record: CityResponse | null): GeoProperties {
  const out: GeoProperties = {};
  if (!record) return out;
  if (record.city?.names?.en) out.$geoip_city_name = record.city.names.en;
  if (record.country?.names?.en) out.$geoip_country_name = record.country.names.en;
  if (record.country?.iso_code) out.$geoip_country_code = record.country.iso_code;
  if (record.continent?.names?.en) out.$geoip_continent_name = record.continent.names.en;
  if (record.continent?.code) out.$geoip_continent_code = record.continent.code;
  if (record.postal?.code) out.$geoip_postal_code = record.postal.code;
  if (record.location?.time_zone) out.$geoip_time_zone = record.location.time_zone;
  return out;
}

// The first X-Forwarded-For entry with any port removed: "1.2.3.4:80", "[::1]:80".
export function clientAddress(forwardedFor: string | undefined, socketAddress: string): string {
  const first = forwardedFor?.split(',')[0]?.trim();
  const raw = first || socketAddress;
  if (raw.startsWith('[')) {
    const end = raw.indexOf(']');
    return end > 0 ? raw.slice(1, end) : raw;
  }
  const colon = raw.indexOf(':');
  if (colon > 0 && colon === raw.lastIndexOf(':')) return raw.slice(0, colon);
  return raw;
}

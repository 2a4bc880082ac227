import type { HttpClient } from '@crateflow/sdk';

/**
 * Wraps an HTTP client and counts its requests in flight, so `runOnClock` moves a manual clock only while no
 * request is under way (a request sent at 12:00:01 then also arrives at 12:00:01).
 */
export function inFlightHttpClient(http: HttpClient): { client: HttpClient; busy: () => boolean } {
  let inFlight = 0;
  const client: HttpClient = {
    request: async (req) => {
      inFlight++;
      try {
        return await http.request(req);
      } finally {
        inFlight--;
      }
    },
  };
  return { client, busy: () => inFlight > 0 };
}

import type { HttpClient, HttpRequest, HttpResponse } from '@crateflow/sdk';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GETs `url`, following up to `maxHops` redirects (the sdk client follows none). A cover from the Cover Art Archive
 * takes three hops: coverartarchive.org 307 → archive.org 302 → a storage node
 * (shared/reference/coverartarchive-api.md §1). Answers the final response and the status of the first one, which
 * is the one that says whether the art exists.
 */
export async function followRedirects(
  http: HttpClient,
  request: HttpRequest & { url: string },
  maxHops = 5,
): Promise<{ first: number; response: HttpResponse; url: string }> {
  let url = request.url;
  let first: number | undefined;
  for (let hop = 0; ; hop++) {
    const response = await http.request({ ...request, url });
    first ??= response.status;
    const location = response.headers['location'];
    if (!REDIRECTS.has(response.status) || location === undefined) return { first, response, url };
    if (hop >= maxHops) throw new Error(`more than ${maxHops} redirects from ${request.url}`);
    const next = new URL(location, url);
    if (next.protocol !== 'https:' && next.protocol !== 'http:') throw new Error(`redirect from ${url} to a ${next.protocol} URL`);
    url = next.href;
  }
}

import { HttpRequestError, RetryLaterError, type HttpClient, type HttpRequest, type HttpResponse } from '@crateflow/sdk';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GETs `url`, following up to `maxHops` redirects (the sdk client follows none). A cover from the Cover Art Archive
 * takes three hops: coverartarchive.org 307 → archive.org 302 → a storage node
 * (shared/reference/coverartarchive-api.md §1). Answers the final response and the status of the first one, which
 * is the one that says whether the art exists.
 *
 * Every hop is a request of its own through `http`, so an upstream client (createUpstreamHttpClient) judges each
 * Location's address by `metadata_policy` before connecting. A Location that is not an http(s) URL is refused
 * (HttpRequestError 'refused-address'); one that does not parse, or more than `maxHops` of them, is an upstream
 * that misbehaves for now (RetryLaterError): both are 503 for a client, never a 500.
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
    if (hop >= maxHops) throw new RetryLaterError(`more than ${maxHops} redirects from ${request.url}`);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch (err: unknown) {
      throw new RetryLaterError(`${url} redirected to "${location}", which is not a URL`, { cause: err });
    }
    if (next.protocol !== 'https:' && next.protocol !== 'http:') {
      throw new HttpRequestError(`refused to follow the redirect from ${url} to a ${next.protocol} URL`, 'refused-address');
    }
    url = next.href;
  }
}

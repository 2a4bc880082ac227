/** POSTs `body` as JSON and returns the parsed answer; any status but `expected` is an error naming the answer. */
export async function postJson(url: string, body: unknown, expected = 200): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`POST ${url} answered ${response.status} (expected ${expected}): ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

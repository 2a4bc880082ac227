import { SerializedJson } from '../http/serialized-json.js';

const MAX_PAGES = 64;

/**
 * Serialised pages of a list, kept until the list changes. The caller names the list's generation; a new one
 * drops every page, so a page is never older than the data it was read from. At most 64 pages are kept (a few
 * hundred KiB): the pages people poll are the first few of a handful of views.
 */
export class SerializedPageCache {
  private generation: number | string = -1;
  private readonly pages = new Map<string, SerializedJson>();

  page(generation: number | string, key: string, build: () => unknown): SerializedJson {
    if (generation !== this.generation) {
      this.pages.clear();
      this.generation = generation;
    }
    let page = this.pages.get(key);
    if (!page) {
      page = new SerializedJson(JSON.stringify(build()));
      if (this.pages.size >= MAX_PAGES) this.pages.clear();
      this.pages.set(key, page);
    }
    return page;
  }
}

/**
 * A view of a document's data that notes what a mutation changes. Writes to `data[collection][key]` (or
 * anywhere inside that record) touch that record; writes anywhere inside another top-level field touch the
 * whole field. Reads pass straight through. Only code running inside a mutation sees this view; everywhere
 * else the data is typed deeply read-only, so a change that bypasses tracking does not compile.
 */
export function trackChanges<T extends object>(
  data: T,
  collections: ReadonlySet<string>,
  touch: (field: string, key?: string) => void,
): T {
  const views = new WeakMap<object, object>();
  const targets = new WeakMap<object, object>();

  // A value written into the data must be raw data, never one of our views: array methods (splice, sort) read
  // elements through `get` and write them back, and a new record may be built from a view's members.
  const unwrap = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return value;
    const target = targets.get(value);
    if (target) return target;
    if (Array.isArray(value)) value.forEach((item, i) => (value[i] = unwrap(item)));
    else for (const [key, item] of Object.entries(value)) Reflect.set(value, key, unwrap(item));
    return value;
  };

  const watch = <O extends object>(target: O, onWrite: () => void): O => {
    const cached = views.get(target);
    if (cached) return cached as O; // the view made for this very object, so it has its type
    const view = new Proxy(target, {
      get(obj, prop, receiver) {
        const value: unknown = Reflect.get(obj, prop, receiver);
        return typeof value === 'object' && value !== null ? watch(value, onWrite) : value;
      },
      set(obj, prop, value) {
        onWrite();
        return Reflect.set(obj, prop, unwrap(value));
      },
      deleteProperty(obj, prop) {
        onWrite();
        return Reflect.deleteProperty(obj, prop);
      },
    });
    views.set(target, view);
    targets.set(view, target);
    return view;
  };

  const collectionView = <O extends object>(field: string, collection: O): O =>
    new Proxy(collection, {
      get(obj, key, receiver) {
        const value: unknown = Reflect.get(obj, key, receiver);
        if (typeof key !== 'string' || typeof value !== 'object' || value === null) return value;
        return watch(value, () => touch(field, key));
      },
      set(obj, key, value) {
        if (typeof key === 'string') touch(field, key);
        return Reflect.set(obj, key, unwrap(value));
      },
      deleteProperty(obj, key) {
        if (typeof key === 'string') touch(field, key);
        return Reflect.deleteProperty(obj, key);
      },
    });

  return new Proxy(data, {
    get(obj, field, receiver) {
      const value: unknown = Reflect.get(obj, field, receiver);
      if (typeof field !== 'string' || typeof value !== 'object' || value === null) return value;
      return collections.has(field) ? collectionView(field, value) : watch(value, () => touch(field));
    },
    set(obj, field, value) {
      if (typeof field === 'string') touch(field);
      return Reflect.set(obj, field, unwrap(value));
    },
  });
}

/** A type whose every nested member is read-only: data handed out outside a mutation. */
export type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

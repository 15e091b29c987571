// The shape of a library: its exports, and for each class its static and
// prototype members (inherited ones included), as names.
export async function run(lib) {
  const out = {};
  for (const name of Object.keys(lib).sort()) {
    const v = lib[name];
    const entry = { type: typeof v, statics: [], members: [] };
    if (typeof v === "function") {
      entry.statics = Object.getOwnPropertyNames(v).filter((n) => !["length", "name", "prototype", "caller", "arguments"].includes(n));
      for (let p = v.prototype; p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
        entry.members.push(...Object.getOwnPropertyNames(p).filter((n) => n !== "constructor"));
      }
    } else if (v && typeof v === "object") {
      entry.members = Object.keys(v);
    }
    entry.statics.sort();
    entry.members = [...new Set(entry.members)].sort();
    out[name] = entry;
  }
  return out;
}

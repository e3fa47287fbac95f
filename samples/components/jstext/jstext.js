// A JavaScript component (jco componentize --backend qjs).
export const text = {
  count(s) {
    const words = s.split(/\s+/).filter((w) => w.length > 0).length;
    const chars = [...s].length;
    const lines = s.length === 0 ? 0 : s.split('\n').length;
    return { words, chars, lines };
  },
  slugify(title, maxLen) {
    let slug = title.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '')
      .replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
    if (maxLen !== undefined && slug.length > maxLen) slug = slug.slice(0, maxLen).replace(/-+$/, '');
    if (slug.length === 0) throw `nothing left of ${JSON.stringify(title)}`;
    return slug;
  },
};

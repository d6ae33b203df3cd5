// The caniemail.com support data, as the `caniemail` npm package ships it (data/caniemail.json, read from disk
// once, nothing downloaded), turned into Mailpit's HTML-check warning for one feature: every tested client
// version's support, the percentages of yes, no and partial, the notes (Mailpit's internal/htmlcheck).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

interface Feature {
  slug: string;
  title: string;
  description: string | null;
  url: string;
  category: string;
  tags: string[] | null;
  keywords: string | null;
  /** family -> platform -> version -> "y" | "n" | "a #1" | "u" ... */
  stats: Record<string, Record<string, Record<string, string>>>;
  notes_by_num: Record<string, string> | null;
}

interface Data {
  api_version: string;
  last_update_date: string;
  nicenames: { family: Record<string, string>; platform: Record<string, string> };
  data: Feature[];
}

export interface CheckResult {
  Name: string;
  Platform: string;
  Family: string;
  Version: string;
  Support: 'yes' | 'no' | 'partial';
  NoteNumber: string;
}

export interface CheckWarning {
  Slug: string;
  Title: string;
  Description: string;
  URL: string;
  Category: string;
  Tags: string[];
  Keywords: string;
  Results: CheckResult[];
  NotesByNumber: Record<string, string>;
  Score: { Found: number; Supported: number; Partial: number; Unsupported: number };
}

let loaded: { data: Data; bySlug: Map<string, Feature>; platforms: Record<string, string[]> } | null = null;

function load() {
  if (loaded) return loaded;
  const file = createRequire(import.meta.url).resolve('caniemail/caniemail.json');
  const data = JSON.parse(readFileSync(file, 'utf8')) as Data;
  const bySlug = new Map(data.data.map((f) => [f.slug, f]));
  // Mailpit's Platforms: each platform with the (nice) names of the client families tested on it, sorted.
  const sets = new Map<string, Set<string>>();
  for (const f of data.data) {
    for (const [family, platforms] of Object.entries(f.stats ?? {})) {
      for (const platform of Object.keys(platforms)) {
        const set = sets.get(platform) ?? new Set<string>();
        set.add(data.nicenames.family[family] ?? family);
        sets.set(platform, set);
      }
    }
  }
  const platforms = Object.fromEntries([...sets].map(([p, s]) => [p, [...s].sort()]));
  loaded = { data, bySlug, platforms };
  return loaded;
}

export const caniemailPlatforms = (): Record<string, string[]> => load().platforms;
export const hasFeature = (slug: string): boolean => load().bySlug.has(slug);
export const familyName = (family: string): string => load().data.nicenames.family[family] ?? family;
export const platformName = (platform: string): string => load().data.nicenames.platform[platform] ?? platform;

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The data's Markdown (code spans, links, emphasis) as HTML, as Mailpit renders it (gomarkdown, links with
 * target="_blank", the outer <p> dropped). The text is escaped first: the markup here is the only markup.
 */
export function markdownToHtml(md: string): string {
  return escapeHtml(md.trim())
    .replace(/`([^`\n]{1,500})`/g, '<code>$1</code>')
    .replace(/\[([^\]\n]{1,500})\]\((https?:\/\/[^)\s"]{1,500})\)/g, '<a href="$2" target="_blank">$1</a>')
    .replace(/\*\*([^*\n]{1,500})\*\*/g, '<strong>$1</strong>')
    .replace(/\n{2,}/g, '</p>\n<p>');
}

/** Mailpit's getTest: the feature's warning with every client result and the support percentages. */
export function featureWarning(slug: string, found: number): CheckWarning | null {
  const { data, bySlug } = load();
  const f = bySlug.get(slug);
  if (!f) return null;
  const results: CheckResult[] = [];
  let y = 0;
  let no = 0;
  let p = 0;
  for (const [family, platforms] of Object.entries(f.stats ?? {})) {
    for (const [platform, versions] of Object.entries(platforms)) {
      for (const [version, support] of Object.entries(versions)) {
        const r: CheckResult = {
          Name: `${data.nicenames.family[family] ?? family} ${data.nicenames.platform[platform] ?? platform} (${version})`,
          Family: family,
          Platform: platform,
          Version: version,
          Support: 'partial',
          NoteNumber: '',
        };
        // As Mailpit: exactly "y" is yes, exactly "n" is no, anything else (a note, "a", "u") is partial.
        if (support === 'y') {
          y++;
          r.Support = 'yes';
        } else if (support === 'n') {
          no++;
          r.Support = 'no';
        } else {
          p++;
          const note = / #(\d+)$/.exec(String(support));
          if (note) r.NoteNumber = note[1]!;
        }
        results.push(r);
      }
    }
  }
  const total = y + no + p || 1;
  return {
    Slug: f.slug,
    Title: f.title,
    Description: markdownToHtml(f.description ?? ''),
    URL: f.url,
    Category: f.category,
    Tags: f.tags ?? [],
    // Mailpit leaves Keywords empty (its own struct has the field, its code does not fill it).
    Keywords: '',
    Results: results,
    NotesByNumber: Object.fromEntries(Object.entries(f.notes_by_num ?? {}).map(([k, v]) => [k, markdownToHtml(v)])),
    Score: { Found: found, Supported: (y / total) * 100, Partial: (p / total) * 100, Unsupported: (no / total) * 100 },
  };
}

import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, readdir, readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One instruction of a Dockerfile: its keyword (upper case), its flags (`--from=build`) and the rest of the line. */
export interface Instruction {
  keyword: string;
  flags: Record<string, string>;
  args: string;
}

/** A stage: the `FROM … AS name` line and the instructions under it. */
export interface Stage {
  name: string;
  image: string;
  instructions: Instruction[];
}

/** What the last stage leaves for `docker run`: the facts an image's config would hold. */
export interface RuntimeImage {
  /** The folder standing for the image's `/`. */
  root: string;
  workdir: string;
  env: Record<string, string>;
  user: string | undefined;
  volumes: string[];
  exposed: string[];
  cmd: string[];
  healthcheck: string[];
}

/**
 * Reads a Dockerfile: comments and blank lines dropped, `\` continuations joined, `${ARG}` of the global ARGs
 * substituted in FROM lines (the only place this repository uses them).
 */
export function parseDockerfile(text: string): Stage[] {
  const logical = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of logical) {
    const instruction = parseInstruction(line);
    const current = stages.at(-1);
    if (instruction.keyword === 'FROM') {
      const [image = '', as, name] = instruction.args.replace(/\$\{(\w+)\}/g, (_, arg: string) => globalArgs[arg] ?? '').split(/\s+/);
      stages.push({ name: as?.toUpperCase() === 'AS' && name ? name : String(stages.length), image, instructions: [] });
    } else if (!current) {
      if (instruction.keyword !== 'ARG') throw new Error(`only ARG may come before FROM, found ${instruction.keyword}`);
      const [key = '', value = ''] = instruction.args.split('=');
      globalArgs[key] = value;
    } else {
      current.instructions.push(instruction);
    }
  }
  return stages;
}

function parseInstruction(line: string): Instruction {
  const [keyword = '', ...rest] = line.split(/\s+/);
  const flags: Record<string, string> = {};
  let args = rest.join(' ');
  // Flags come first (COPY --from=build, HEALTHCHECK --interval=30s); a JSON array or a command follows.
  for (let flag = /^--([\w-]+)=(\S+)\s*/.exec(args); flag; flag = /^--([\w-]+)=(\S+)\s*/.exec(args)) {
    flags[flag[1] ?? ''] = flag[2] ?? '';
    args = args.slice(flag[0].length);
  }
  return { keyword: keyword.toUpperCase(), flags, args };
}

/** The global ARG values (e.g. NODE_VERSION), for checks on the recipe itself. */
export function dockerfileArgs(text: string): Record<string, string> {
  const args: Record<string, string> = {};
  for (const match of text.matchAll(/^ARG\s+(\w+)=(\S+)\s*$/gm)) args[match[1] ?? ''] = match[2] ?? '';
  return args;
}

/**
 * Carries out a Dockerfile without a container engine: each stage gets a folder under `root` that stands for its
 * `/`; COPY copies from the build context (honouring .dockerignore) or from an earlier stage's folder, RUN runs
 * the command with this machine's node and npm in the stage's WORKDIR. The base image is not there: its node is
 * this process's node, and its user (`USER node`) is `serviceUser`.
 *
 * In RUN commands, absolute paths under the image's own folders (those named by WORKDIR, COPY and VOLUME) are
 * pointed into the stage folder, and `<user>:<user>` becomes `serviceUser`'s ids, so `mkdir -p /data && chown
 * node:node /data` does the same to the stage's tree. Any instruction outside the supported set is an error, so
 * the recipe cannot grow a step this check silently skips.
 *
 * Nor are the base image's system packages: a RUN that only installs Debian packages (`apt-get update`,
 * `apt-get install … NAMES`, `rm -rf /var/lib/apt/lists/*`, joined by `&&`) is not run on this machine, which it
 * would change; instead each package must already be here, as a command of its name on PATH (python3, make, g++
 * for node-gyp), so that the steps after it meet the tools the image would have. Any other use of apt-get is an
 * error.
 */
export async function buildRecipe(options: { dockerfile: string; context: string; root: string; serviceUser: { uid: number; gid: number }; env?: NodeJS.ProcessEnv }): Promise<RuntimeImage> {
  const text = await readFile(options.dockerfile, 'utf8');
  const stages = parseDockerfile(text);
  const ignore = await readDockerignore(options.context);
  const imageFolders = folderRoots(stages);
  const stageRoots = new Map<string, string>();
  let image: RuntimeImage | undefined;
  for (const stage of stages) {
    const root = join(options.root, stage.name);
    await mkdir(root, { recursive: true });
    stageRoots.set(stage.name, root);
    image = { root, workdir: '/', env: {}, user: undefined, volumes: [], exposed: [], cmd: [], healthcheck: [] };
    const inStage = (path: string) => join(root, path);
    // The stage's USER may come after the RUN that prepares folders for it (chown node:node /data).
    const serviceUserName = stage.instructions.findLast((instruction) => instruction.keyword === 'USER')?.args;
    const mapPaths = (command: string) =>
      command.replace(new RegExp(`(^|[\\s=:])(/(?:${imageFolders.join('|')}))(?=/|\\s|$)`, 'g'), (_, before: string, path: string) => `${before}${inStage(path)}`);
    for (const { keyword, flags, args } of stage.instructions) {
      const cwd = inStage(image.workdir);
      switch (keyword) {
        case 'WORKDIR':
          image.workdir = isAbsolute(args) ? args : join(image.workdir, args);
          await mkdir(inStage(image.workdir), { recursive: true });
          break;
        case 'ENV': {
          const [key = '', ...value] = args.split('=');
          image.env[key] = value.join('=');
          break;
        }
        case 'COPY': {
          const parts = args.split(/\s+/);
          const dest = parts.pop() ?? '';
          const from = flags.from === undefined ? undefined : stageRoots.get(flags.from);
          if (flags.from !== undefined && !from) throw new Error(`COPY --from=${flags.from}: no such stage before ${stage.name}`);
          for (const source of parts) {
            const sourcePath = from ? join(from, source) : join(options.context, source);
            const target = isAbsolute(dest) ? inStage(dest) : join(cwd, dest);
            await copyInto(sourcePath, target, dest.endsWith('/') || parts.length > 1, from ? () => false : (path) => ignore(relative(options.context, path)));
          }
          break;
        }
        case 'RUN': {
          const packages = debianPackagesInstalledBy(args);
          if (packages) {
            await requireCommands(packages);
            break;
          }
          const command = serviceUserName ? mapPaths(args).replaceAll(`${serviceUserName}:${serviceUserName}`, `${options.serviceUser.uid}:${options.serviceUser.gid}`) : mapPaths(args);
          await run('sh', ['-c', command], { cwd, env: { ...process.env, ...options.env, ...image.env }, maxBuffer: 64 * 1024 * 1024 });
          break;
        }
        case 'USER':
          image.user = args;
          break;
        case 'VOLUME':
          image.volumes = jsonArray(args, keyword);
          for (const volume of image.volumes) await mkdir(inStage(volume), { recursive: true });
          break;
        case 'EXPOSE':
          image.exposed.push(...args.split(/\s+/));
          break;
        case 'HEALTHCHECK':
          image.healthcheck = jsonArray(args.replace(/^CMD\s+/, ''), keyword);
          break;
        case 'CMD':
          image.cmd = jsonArray(args, keyword);
          break;
        default:
          throw new Error(`${keyword} is not an instruction test/helpers/dockerfile-recipe.ts knows how to carry out`);
      }
    }
  }
  if (!image) throw new Error(`${options.dockerfile} has no FROM`);
  return image;
}

/** The packages of a RUN that only installs Debian packages; undefined for a RUN that does not use apt-get. */
function debianPackagesInstalledBy(command: string): string[] | undefined {
  if (!/\bapt-get\b/.test(command)) return undefined;
  const packages: string[] = [];
  for (const step of command.split('&&').map((part) => part.trim().split(/\s+/))) {
    const [program, verb, ...rest] = step;
    if (program === 'apt-get' && verb === 'update' && rest.length === 0) continue;
    if (program === 'rm' && verb === '-rf' && rest.join(' ') === '/var/lib/apt/lists/*') continue;
    if (program === 'apt-get' && verb === 'install') {
      packages.push(...rest.filter((word) => !word.startsWith('-')));
      continue;
    }
    throw new Error(`RUN ${command}: "${step.join(' ')}" is not a step test/helpers/dockerfile-recipe.ts knows how to stand in for`);
  }
  if (packages.length === 0) throw new Error(`RUN ${command}: apt-get installs nothing`);
  return packages;
}

/** Each name must be a command on this machine's PATH (what the image's apt-get install would provide). */
async function requireCommands(names: readonly string[]): Promise<void> {
  const missing: string[] = [];
  for (const name of names) {
    await run('sh', ['-c', 'command -v "$1"', 'sh', name]).catch(() => missing.push(name));
  }
  if (missing.length > 0) throw new Error(`the image installs ${missing.join(', ')} with apt-get; this machine lacks them (apt-get install ${missing.join(' ')})`);
}

/** Absolute folders the recipe creates or mounts (`/src`, `/app`, `/data`…): the first segment of each. */
function folderRoots(stages: readonly Stage[]): string[] {
  const roots = new Set<string>();
  for (const { keyword, args } of stages.flatMap((stage) => stage.instructions)) {
    const paths = keyword === 'WORKDIR' ? [args] : keyword === 'COPY' ? [args.split(/\s+/).at(-1) ?? ''] : keyword === 'VOLUME' ? jsonArray(args, keyword) : [];
    for (const path of paths) if (isAbsolute(path)) roots.add(path.split('/')[1] ?? '');
  }
  return [...roots].filter((root) => root !== '');
}

function jsonArray(text: string, keyword: string): string[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed) || !parsed.every((item): item is string => typeof item === 'string')) throw new Error(`${keyword} must be a JSON array of strings: ${text}`);
  return parsed;
}

/**
 * Docker's COPY: a folder's contents go into the target folder; a file goes into the target when it is a folder
 * (written with a trailing `/`), else becomes it. Modes are kept, owners become the copier's (root in an image).
 */
async function copyInto(source: string, target: string, targetIsFolder: boolean, ignored: (path: string) => boolean): Promise<void> {
  const info = await stat(source);
  if (info.isDirectory()) {
    await mkdir(target, { recursive: true });
    await cp(source, target, { recursive: true, verbatimSymlinks: true, filter: (path) => !ignored(path) });
  } else {
    const file = targetIsFolder ? join(target, source.split('/').at(-1) ?? '') : target;
    await mkdir(dirname(file), { recursive: true });
    await cp(source, file);
    await chmod(file, info.mode & 0o777);
  }
}

/**
 * The context's .dockerignore as a predicate on paths relative to the context. Only the two forms this repository
 * uses are read, `path` (from the context root, with everything under it) and `**\/name` (that name anywhere);
 * any other pattern is an error rather than a guess at Docker's matching rules.
 */
async function readDockerignore(context: string): Promise<(path: string) => boolean> {
  const text = await readFile(join(context, '.dockerignore'), 'utf8').catch(() => '');
  const plain: string[] = [];
  const anywhere: string[] = [];
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    if (/^\*\*\/[^*?[\]!]+$/.test(line)) anywhere.push(line.slice(3));
    else if (/^[^*?[\]!]+$/.test(line)) plain.push(line.replace(/^\.?\/|\/$/g, ''));
    else throw new Error(`.dockerignore pattern "${line}" is not one test/helpers/dockerfile-recipe.ts reads`);
  }
  return (path) => {
    if (path === '' || path.startsWith('..')) return false;
    const segments = path.split('/');
    return plain.some((p) => path === p || path.startsWith(`${p}/`)) || segments.some((segment) => anywhere.includes(segment));
  };
}

/** Every file and folder under `dir`, relative to it (for checks on what an image holds). */
export async function listTree(dir: string, under = ''): Promise<string[]> {
  const entries = await readdir(join(dir, under), { withFileTypes: true });
  const paths: string[] = [];
  for (const entry of entries) {
    const path = under ? `${under}/${entry.name}` : entry.name;
    paths.push(path);
    if (entry.isDirectory()) paths.push(...(await listTree(dir, path)));
  }
  return paths;
}

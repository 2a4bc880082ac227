/** The marker in front of the JSON line the script's done() prints; everything else wrk prints is ignored. */
export const RESULT_MARKER = 'WRK_RESULT ';
/** Printed by each wrk thread once every request of its share of a list has been answered. */
export const THREAD_DONE_MARKER = 'WRK_THREAD_DONE';

/** The figures done() prints as JSON after RESULT_MARKER (times in µs). */
export interface WrkReport {
  /** 2xx answers (in fixed mode, wrk's own count of answers below 400). */
  ok: number;
  answered: number;
  /** Run time in µs: wrk's own for a fixed request; first request to last answer for a list. */
  durationUs: number;
  p50Us: number;
  p99Us: number;
  errors: number;
}

export interface WrkScriptOptions {
  /** `list`: every line of a file sent once; `fixed`: one request repeated for the whole duration. */
  mode: 'fixed' | 'list';
  method: 'GET' | 'POST';
  /** The body of the fixed request. */
  body?: string;
}

/**
 * The Lua script given to `wrk -s`:
 * - fixed: one request repeated for the whole duration. The script defines no request(), delay() or response()
 *   hook, so wrk never hands answers to Lua and runs as fast as plain wrk; 2xx = answers − wrk's status errors
 *   (wrk counts answers ≥ 400 as such).
 * - list (`init` receives a file of `path<TAB>body` lines and the thread count): each line is sent exactly once,
 *   thread k taking lines k, k+T, k+2T…, so each id is approved once. A connection claims the next line in delay()
 *   (which wrk calls before every request, the first one included) and idles once the share is used up;
 *   request() hands out a claimed line. wrk calls request() once more on thread 0 to check the script; that call
 *   claims nothing and returns line 1 unsent. A thread prints THREAD_DONE_MARKER after its last answer, and the
 *   caller then stops wrk with SIGINT (wrk otherwise sleeps out the whole -d). The run time is measured here with
 *   CLOCK_MONOTONIC through LuaJIT's ffi, from the first request to the last answer.
 */
export function wrkScript(options: WrkScriptOptions): string {
  const request = [`wrk.method = "${options.method}"`, ...(options.body === undefined ? [] : [`wrk.body = ${luaLongString(options.body)}`])].join('\n');
  return options.mode === 'list' ? `${request}\n${LIST_SCRIPT}` : `${request}\n${FIXED_SCRIPT}`;
}

/** A Lua long string holding `text` verbatim, with a bracket level that `text` does not contain. */
function luaLongString(text: string): string {
  let level = '';
  while (text.includes(`]${level}]`)) level += '=';
  return `[${level}[${text}]${level}]`;
}

const FIXED_SCRIPT = String.raw`
function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format('${RESULT_MARKER}{"ok":%d,"answered":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"errors":%d}\n',
    summary.requests - summary.errors.status, summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), errors))
end
`;

const LIST_SCRIPT = String.raw`
local ffi = require("ffi")
ffi.cdef[[ typedef struct { long tv_sec; long tv_nsec; } crateflow_bench_timespec; int clock_gettime(int clk, crateflow_bench_timespec *tp); ]]
local timespec = ffi.new("crateflow_bench_timespec")
local function now_us()
  ffi.C.clock_gettime(1, timespec)
  return tonumber(timespec.tv_sec) * 1000000 + math.floor(tonumber(timespec.tv_nsec) / 1000)
end

local threads = {}
function setup(thread)
  thread:set("index", #threads)
  table.insert(threads, thread)
end

local list, claimed = {}, {}
local reserved, answered, ok, started = 0, 0, 0, nil

function init(args)
  local file, thread_count = args[1], tonumber(args[2] or "1")
  local first = wrk.thread:get("index") + 1
  local line_number = 0
  for line in io.lines(file) do
    line_number = line_number + 1
    if (line_number - first) % thread_count == 0 then
      local tab = line:find("\t", 1, true)
      local path, body = line:sub(1, tab - 1), line:sub(tab + 1)
      table.insert(list, wrk.format(nil, path, nil, body ~= "" and body or nil))
    end
  end
  wrk.thread:set("share", #list)
  if #list == 0 then io.write("${THREAD_DONE_MARKER}\n") io.stdout:flush() end
end

function delay()
  if reserved >= #list then return 3600000 end
  reserved = reserved + 1
  table.insert(claimed, reserved)
  return 0
end

function request()
  local i = table.remove(claimed)
  if i == nil then return list[1] or wrk.request() end
  if started == nil then
    started = now_us()
    wrk.thread:set("started", started)
  end
  return list[i]
end

function response(status, headers, body)
  answered = answered + 1
  if status >= 200 and status < 300 then ok = ok + 1 end
  wrk.thread:set("ok", ok)
  wrk.thread:set("answered", answered)
  if answered == #list then
    wrk.thread:set("finished", now_us())
    io.write("${THREAD_DONE_MARKER}\n")
    io.stdout:flush()
  end
end

function done(summary, latency, requests)
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  local ok_total, answered_total, duration = 0, 0, summary.duration
  local first, last = nil, nil
  for _, thread in ipairs(threads) do
    ok_total = ok_total + (thread:get("ok") or 0)
    answered_total = answered_total + (thread:get("answered") or 0)
    local s, f = thread:get("started"), thread:get("finished")
    if s ~= nil and (first == nil or s < first) then first = s end
    if f ~= nil and (last == nil or f > last) then last = f end
  end
  -- A thread cut off by -d never set "finished"; then wrk's own duration is the honest one.
  local all_finished = true
  for _, thread in ipairs(threads) do
    if (thread:get("share") or 0) > 0 and thread:get("finished") == nil then all_finished = false end
  end
  if all_finished and first ~= nil and last ~= nil then duration = last - first end
  io.write(string.format('${RESULT_MARKER}{"ok":%d,"answered":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"errors":%d}\n',
    ok_total, answered_total, duration, latency:percentile(50), latency:percentile(99), errors))
end
`;

#!/usr/bin/env python3
"""Helpers of bench/profile (issue 16, item 1). Standard library only.

  profile-tools.py jfc SRC.jfc OUT.jfc
      JFR settings = SRC (the JDK's profile.jfc) with jdk.ThreadCPULoad every 1 s, jdk.TLSHandshake on and Java
      execution samples every $JFR_SAMPLE_PERIOD (10 ms, as profile.jfc; JDK 17 does not sample faster).
  profile-tools.py snap PID...
      One JSON line: wall clock (ns), machine CPU (/proc/stat, ns), and per process: /proc/PID/schedstat of the
      main thread (the field the issue names; it counts the main thread only), the sum of every live thread's
      /proc/PID/task/TID/schedstat, /proc/PID/stat utime+stime (all threads, dead ones too), per thread ns + comm.
  profile-tools.py wrk WRK_OUTPUT_FILE
      One JSON line: rps, requests, non-2xx, socket errors, latency percentiles.
  profile-tools.py delta BEFORE AFTER LABEL=PID... [--requests N]
      CPU used per process between two snaps (ms, us per request) and the busiest threads.
  profile-tools.py jfr FILE.jfr --label L [--threads THREADS.json] [--requests N] [--top 15]
      Summary of one recording: hot methods (self), time by component (self), time by innermost mvproxy frame
      (what mvproxy code the CPU is spent under), inclusive mvproxy methods, allocation (top frames, classes,
      innermost mvproxy frame), GC, thread CPU (event loops), TLS handshakes, parks/monitor waits on event loops.
  profile-tools.py record RUN TARGET WRK.json DELTA.json WRK_CPU_SECONDS
      One JSON line of the results file: the wrk figures, the CPU deltas, wrk's own CPU and the others' (noise).
  profile-tools.py syscalls LABEL PERF_TRACE_OUTPUT THREADS.txt REQUESTS
      Syscalls per request by thread group (perf trace -s).
  profile-tools.py groups RESULTS.jsonl THREADS_A.txt THREADS_B.txt
      CPU per request by thread group (event loops, workers, Hazelcast, JIT, GC) per node and run.
  profile-tools.py table RESULTS.jsonl
      The final summary table.
"""
import collections
import json
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

CLK_TCK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------------------------------------- jfc settings
def cmd_jfc(src, out):
    tree = ET.parse(src)
    for ev in tree.getroot().iter("event"):
        name = ev.get("name")
        for s in ev.iter("setting"):
            if name == "jdk.ThreadCPULoad" and s.get("name") == "period":
                s.text = "1 s"
            if name == "jdk.TLSHandshake" and s.get("name") == "enabled":
                s.text = "true"
            if name == "jdk.ExecutionSample" and s.get("name") == "period":
                s.text = os.environ.get("JFR_SAMPLE_PERIOD", "10 ms")
    tree.write(out)


# ---------------------------------------------------------------------------------------------------- /proc snapshots
def _read(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def _stat_fields(text):
    # /proc/PID/stat: the comm may contain spaces and parentheses; fields after the last ')'
    rest = text[text.rindex(")") + 2:].split()
    return rest  # rest[0] is field 3 (state); utime = field 14 -> rest[11], stime = rest[12]


def snap_process(pid):
    main = _read(f"/proc/{pid}/schedstat")
    stat = _read(f"/proc/{pid}/stat")
    if main is None or stat is None:
        return None
    f = _stat_fields(stat)
    threads = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        s = _read(f"/proc/{pid}/task/{tid}/schedstat")
        c = _read(f"/proc/{pid}/task/{tid}/comm")
        st = _read(f"/proc/{pid}/task/{tid}/stat")
        if s is None or st is None:
            continue
        tf = _stat_fields(st)
        threads[tid] = [int(s.split()[0]), (c or "?").strip(), int(tf[11]), int(tf[12])]
    return {
        "main_schedstat_ns": int(main.split()[0]),
        "threads_schedstat_ns": sum(v[0] for v in threads.values()),
        "stat_ns": (int(f[11]) + int(f[12])) * 1_000_000_000 // CLK_TCK,
        "stime_ns": int(f[12]) * 1_000_000_000 // CLK_TCK,
        "threads": threads,
    }


def machine_cpu_ns():
    line = _read("/proc/stat").splitlines()[0].split()
    vals = [int(x) for x in line[1:]]
    idle = vals[3] + vals[4]  # idle + iowait
    total = sum(vals[:8])  # user nice system idle iowait irq softirq steal
    return (total - idle) * 1_000_000_000 // CLK_TCK, total * 1_000_000_000 // CLK_TCK


def cmd_snap(pids):
    busy, total = machine_cpu_ns()
    out = {"wall_ns": time.monotonic_ns(), "machine_busy_ns": busy, "machine_total_ns": total,
           "loadavg": _read("/proc/loadavg").split()[:3], "procs": {}}
    for p in pids:
        out["procs"][p] = snap_process(p)
    print(json.dumps(out))


def thread_names(path):
    """tid -> full Java thread name, from `jcmd PID Thread.print` (/proc's comm is cut at 15 characters)."""
    names = {}
    if path and os.path.exists(path):
        for m in re.finditer(r'^"(.*?)" .*? nid=(0x[0-9a-f]+|\d+) ', open(path).read(), re.M):
            names[int(m.group(2), 0)] = m.group(1)
    return names


THREAD_GROUPS = [
    ("event loops", re.compile(r"^vert\.x-eventloo")),
    ("vert.x workers (executeBlocking)", re.compile(r"^vert\.x-(worker|internal-blocking)")),
    ("Hazelcast partition/generic operations", re.compile(r"^hz\..*\.(partition|generic)-operation")),
    ("Hazelcast IO", re.compile(r"^hz\..*\.IO\.")),
    ("Hazelcast other", re.compile(r"^hz\.")),
    ("JIT compilers", re.compile(r"^C[12] Compiler")),
    ("GC", re.compile(r"^(GC Thread|G1 |VM Periodic|VM Thread)")),
    ("JFR / attach", re.compile(r"^(JFR |Attach Listener)")),
]


def thread_group(name):
    for g, rx in THREAD_GROUPS:
        if rx.search(name):
            return g
    return "other"


# ---------------------------------------------------------------------------------------------------- wrk output
def _ms(v, unit):
    return float(v) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def parse_wrk(text):
    r = {"rps": None, "requests": None, "non2xx": 0, "socket_errors": 0, "latency": {}}
    m = re.search(r"Requests/sec:\s+([\d.]+)", text)
    if m:
        r["rps"] = float(m.group(1))
    m = re.search(r"(\d+) requests in ([\d.]+)(\w+),", text)
    if m:
        r["requests"] = int(m.group(1))
    m = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", text)
    if m:
        r["non2xx"] = int(m.group(1))
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    if m:
        r["socket_errors"] = sum(int(x) for x in m.groups())
    for p, v, u in re.findall(r"^\s+(50|75|90|99)%\s+([\d.]+)(us|ms|s)\s*$", text, re.M):
        r["latency"]["p" + p] = round(_ms(v, u), 3)
    return r


def cmd_wrk(path):
    print(json.dumps(parse_wrk(open(path).read())))


# ---------------------------------------------------------------------------------------------------- CPU deltas
def cmd_delta(before_path, after_path, labels, requests):
    b = json.loads(open(before_path).read())
    a = json.loads(open(after_path).read())
    wall = a["wall_ns"] - b["wall_ns"]
    res = {"wall_s": wall / 1e9, "machine_busy_cores": (a["machine_busy_ns"] - b["machine_busy_ns"]) / wall,
           "procs": {}}
    for lab in labels:
        name, pid = lab.split("=")
        pb, pa = b["procs"].get(pid), a["procs"].get(pid)
        if not pb or not pa:
            continue
        d = {k: pa[k] - pb[k] for k in ("main_schedstat_ns", "threads_schedstat_ns", "stat_ns", "stime_ns")}
        d["kernel_share"] = d["stime_ns"] / d["stat_ns"] if d["stat_ns"] else 0
        th = []
        for tid, (ns, comm, ut, st) in pa["threads"].items():
            ns0, _, ut0, st0 = pb["threads"].get(tid, [0, comm, 0, 0])
            if ns - ns0 > 0:
                th.append({"tid": int(tid), "comm": comm, "cpu_ms": (ns - ns0) / 1e6, "util": (ns - ns0) / wall,
                           "sys_ticks": st - st0, "user_ticks": ut - ut0})
        th.sort(key=lambda t: -t["cpu_ms"])
        d["threads"] = th
        d["cpu_ms"] = max(d["threads_schedstat_ns"], d["stat_ns"]) / 1e6
        d["cores"] = max(d["threads_schedstat_ns"], d["stat_ns"]) / wall
        jit_ns = sum(t["cpu_ms"] * 1e6 for t in th if re.match(r"C[12] Compiler", t["comm"]))
        if requests:
            d["us_per_req"] = max(d["threads_schedstat_ns"], d["stat_ns"]) / 1e3 / requests
            d["us_per_req_no_jit"] = (max(d["threads_schedstat_ns"], d["stat_ns"]) - jit_ns) / 1e3 / requests
            d["main_schedstat_us_per_req"] = d["main_schedstat_ns"] / 1e3 / requests
        res["procs"][name] = d
    print(json.dumps(res))


# ---------------------------------------------------------------------------------------------------- JFR summary
def jfr_events(path, events, stack_depth=256):
    out = subprocess.run(["jfr", "print", "--json", "--stack-depth", str(stack_depth), "--events", ",".join(events),
                          path], check=True, capture_output=True, text=True).stdout
    return json.loads(out)["recording"]["events"]


def frame_type(fr):
    return ((fr.get("method") or {}).get("type") or {}).get("name", "?").replace("/", ".")


def frame_name(fr):
    """Class.method; a lambda body (lambda$chain$5) gets its line, so the handler it is can be found in the source."""
    name = (fr.get("method") or {}).get("name", "?")
    n = f"{frame_type(fr)}.{name}"
    if name.startswith("lambda$"):
        n += f":{fr.get('lineNumber', '?')}"
    return n


def synthetic(fr):
    return "$$Lambda" in frame_type(fr)


# Components, first match wins (matched against the frame's class name).
COMPONENTS = [
    ("TLS crypto (AES-GCM, GHASH, SHA)", re.compile(r"^(com\.sun\.crypto\.provider\.|sun\.security\.provider\.(SHA|Digest)|"
                                                      r"javax\.crypto\.|sun\.security\.ec\.|sun\.security\.rsa\.|java\.math\.)")),
    ("TLS SSLEngine (JDK sun.security.ssl)", re.compile(r"^(sun\.security\.ssl\.|javax\.net\.ssl\.|sun\.security\.)")),
    ("Netty SslHandler", re.compile(r"^io\.netty\.handler\.ssl\.")),
    ("Netty HTTP codec", re.compile(r"^io\.netty\.handler\.codec\.")),
    ("Netty buffers", re.compile(r"^io\.netty\.buffer\.")),
    ("Netty channel/event loop/NIO", re.compile(r"^io\.netty\.")),
    ("Vert.x HTTP server/client", re.compile(r"^io\.vertx\.core\.(http|net)\.")),
    ("Vert.x core (context, futures, timers)", re.compile(r"^io\.vertx\.core\.")),
    ("Vert.x Web router", re.compile(r"^io\.vertx\.ext\.web\.")),
    ("Vert.x other", re.compile(r"^io\.vertx\.")),
    ("mvproxy ingress", re.compile(r"^io\.mvproxy\.node\.ingress\.")),
    ("mvproxy proxy", re.compile(r"^io\.mvproxy\.node\.proxy\.")),
    ("mvproxy metrics", re.compile(r"^io\.mvproxy\.node\.metrics\.")),
    ("mvproxy routing/fleet", re.compile(r"^io\.mvproxy\.node\.(routing|fleet)\.")),
    ("mvproxy security", re.compile(r"^io\.mvproxy\.security\.")),
    ("mvproxy authorization", re.compile(r"^io\.mvproxy\.authorization\.")),
    ("mvproxy storage", re.compile(r"^io\.mvproxy\.storage\.")),
    ("mvproxy other", re.compile(r"^io\.mvproxy\.")),
    ("Micrometer", re.compile(r"^io\.micrometer\.")),
    ("Jackson", re.compile(r"^com\.fasterxml\.jackson\.")),
    ("Hazelcast", re.compile(r"^com\.hazelcast\.")),
    ("NIO / sockets (JDK)", re.compile(r"^(sun\.nio\.|java\.nio\.|sun\.net\.|java\.net\.)")),
    ("JDK util.concurrent", re.compile(r"^java\.util\.concurrent\.")),
    ("JDK collections/regex/strings", re.compile(r"^(java\.util\.|java\.lang\.String|java\.lang\.StringBuilder|"
                                                 r"java\.lang\.AbstractStringBuilder|java\.lang\.StringLatin1|"
                                                 r"java\.lang\.StringUTF16|java\.lang\.CharacterData)")),
    ("JDK time", re.compile(r"^java\.time\.")),
    ("JDK reflection/invoke", re.compile(r"^(java\.lang\.invoke\.|jdk\.internal\.reflect\.|java\.lang\.reflect\.)")),
    ("JDK other", re.compile(r"^(java\.|jdk\.|sun\.)")),
]


def component(cls):
    for name, rx in COMPONENTS:
        if rx.search(cls):
            return name
    return "other: " + ".".join(cls.split(".")[:3])


# mvproxy frames that only wrap the I/O pipeline (everything of a connection runs under them): skipped when looking
# for the mvproxy code a sample is spent under, so TLS / HTTP decoding is not charged to them.
PIPELINE_WRAPPERS = re.compile(r"^io\.mvproxy\.(security\.PlainHttpAnswer\$Handler\.|"
                               r"node\.ingress\.ConnectionTimeouts\$State\$\d\.|"
                               r"node\.ingress\.IngressVerticle\.lambda\$start\$)")


# The ingress chain (IngressVerticle.chain) in order, outermost first, as frames; a sample is charged to the
# innermost step on its stack, so each step's figure is its own work plus the router's dispatch to the next step.
CHAIN = [
    ("TLS record layer + HTTP decoding (PlainHttpAnswer/SslHandler, ConnectionTimeouts)",
     re.compile(r"^io\.mvproxy\.(security\.PlainHttpAnswer\$Handler\.decode|node\.ingress\.ConnectionTimeouts\$State)")),
    ("request handler -> Router (ServerLimits.pathDecodes, route matching)",
     re.compile(r"^io\.mvproxy\.node\.ingress\.IngressVerticle\.lambda\$start\$")),
    ("AuditIds", re.compile(r"^io\.mvproxy\.node\.ingress\.AuditIds\.handle")),
    ("Authenticator", re.compile(r"^io\.mvproxy\.security\.Authenticator\.handle")),
    ("requestInfo (RequestInfo.parse, track)", re.compile(r"^io\.mvproxy\.node\.ingress\.IngressVerticle\.requestInfo")),
    ("RequestDeadline", re.compile(r"^io\.mvproxy\.node\.ingress\.RequestDeadline\.handle")),
    ("ImpersonationFilter", re.compile(r"^io\.mvproxy\.node\.ingress\.ImpersonationFilter\.handle")),
    ("MaxInFlight", re.compile(r"^io\.mvproxy\.node\.ingress\.MaxInFlight\.handle")),
    ("AuthorizationFilter", re.compile(r"^io\.mvproxy\.node\.ingress\.AuthorizationFilter\.handle")),
    ("body step + resource dispatch (RequestInfo.routable)",
     re.compile(r"^io\.mvproxy\.node\.ingress\.IngressVerticle\.lambda\$chain\$")),
    ("ResourceHandler: routing decision + local source or PeerProxy.forwardResource (the handler itself)",
     re.compile(r"^io\.mvproxy\.node\.ingress\.ResourceHandler\.handle")),
]


def chain_step(frames):
    """Index of the innermost CHAIN step on the stack (frames[0] is the top), or None."""
    best = None
    for fr in frames:
        n = frame_name(fr)
        for i, (_, rx) in enumerate(CHAIN):
            if rx.search(n) and (best is None or i > best):
                best = i
    return best


def innermost_mvproxy(frames):
    """The deepest io.mvproxy frame (frames[0] is the top of the stack) -- what mvproxy code the sample is under."""
    for fr in frames:
        n = frame_name(fr)
        if n.startswith("io.mvproxy.") and not synthetic(fr) and not PIPELINE_WRAPPERS.search(n):
            return n
    return None


def lambda_clean(n):
    return re.sub(r"\$\$Lambda\$\d+/0x[0-9a-f]+", "$$Lambda", n)


def thread_of(ev):
    t = ev["values"].get("sampledThread") or ev["values"].get("eventThread") or {}
    return t.get("javaName") or t.get("osName") or "?", t.get("osThreadId")


def pct(n, total):
    return f"{100.0 * n / total:5.1f}%" if total else "  -  "


def print_rank(title, counter, total, top, unit="samples", fmt=None):
    print(f"  {title}")
    for k, v in counter.most_common(top):
        val = fmt(v) if fmt else str(v)
        print(f"    {pct(v, total)} {val:>9}  {k}")


def cmd_jfr(path, label, threads_path, requests, top, names_path=None):
    print(f"\n=== JFR {label}: {path}")
    ev = jfr_events(path, ["jdk.ExecutionSample"])
    total = len(ev)
    self_m, self_c, inner, incl_mv, by_thread, incl_c, steps = (collections.Counter() for _ in range(7))
    tid_names = thread_names(names_path)
    for e in ev:
        frames = e["values"]["stackTrace"]["frames"] if e["values"].get("stackTrace") else []
        tname, tid = thread_of(e)
        if tid is not None:
            tid_names.setdefault(tid, tname)
        by_thread[re.sub(r"-\d+$", "-N", tname)] += 1
        if not frames:
            continue
        self_m[lambda_clean(frame_name(frames[0]))] += 1
        self_c[component(frame_type(frames[0]))] += 1
        im = innermost_mvproxy(frames)
        inner[lambda_clean(im) if im else "(outside mvproxy code) " + component(frame_type(frames[0]))] += 1
        for c in {component(frame_type(fr)) for fr in frames}:
            incl_c[c] += 1
        step = chain_step(frames)
        if step is None:
            im = innermost_mvproxy(frames)
            steps["(not under the chain) " + (lambda_clean(im) if im else component(frame_type(frames[0])))] += 1
        else:
            steps[f"{step:2d} {CHAIN[step][0]}"] += 1
        seen = set()
        for fr in frames:
            n = frame_name(fr)
            if n.startswith("io.mvproxy.") and not synthetic(fr) and n not in seen:
                seen.add(n)
                incl_mv[lambda_clean(n)] += 1
    print(f"  execution samples: {total}")
    print_rank("by thread (samples):", by_thread, total, 8)
    # event-loop time in native code (syscalls: read, write, epoll) is not in ExecutionSample: NativeMethodSample
    nat = jfr_events(path, ["jdk.NativeMethodSample"], stack_depth=3)
    nat_loop = collections.Counter()
    for e in nat:
        t = (e["values"].get("sampledThread") or {}).get("javaName") or ""
        frames = e["values"]["stackTrace"]["frames"] if e["values"].get("stackTrace") else []
        if "eventloop" in t and frames:
            nat_loop[frame_name(frames[0])] += 1
    java_loop = sum(v for k, v in by_thread.items() if "eventloop" in k)
    print(f"  event-loop threads: {java_loop} Java samples, {sum(nat_loop.values())} native samples "
          f"(native: every 20 ms, one thread per period; epoll waits are idle time):")
    for k, v in nat_loop.most_common(5):
        print(f"    {v:6d}  {k}")
    print_rank(f"top {top} methods, self:", self_m, total, top)
    print_rank("self time by component (top frame's package):", self_c, total, 20)
    print_rank("inclusive by component (samples with a frame of it anywhere in the stack):", incl_c, total, 22)
    print("  ingress chain: samples charged to the innermost chain step on the stack (in chain order), then the rest:")
    chained = sorted(k for k in steps if not k.startswith("(not"))
    for k in chained:
        print(f"    {pct(steps[k], total)} {steps[k]:>9}  {k}")
    rest = collections.Counter({k: v for k, v in steps.items() if k.startswith("(not")})
    for k, v in rest.most_common(top):
        print(f"    {pct(v, total)} {v:>9}  {k}")
    print_rank(f"innermost mvproxy frame (CPU spent in or under it, I/O pipeline wrappers skipped; top {top + 5}):",
               inner, total, top + 5)
    print_rank(f"mvproxy methods, inclusive (top {top}):", incl_mv, total, top)

    # allocation
    al = jfr_events(path, ["jdk.ObjectAllocationSample"])
    w_total = sum(e["values"].get("weight", 0) for e in al)
    a_frame, a_class, a_inner, a_comp = (collections.Counter() for _ in range(4))
    for e in al:
        w = e["values"].get("weight", 0)
        a_class[(e["values"].get("objectClass") or {}).get("name", "?")] += w
        frames = e["values"]["stackTrace"]["frames"] if e["values"].get("stackTrace") else []
        if frames:
            a_frame[lambda_clean(frame_name(frames[0]))] += w
            a_comp[component(frame_type(frames[0]))] += w
            im = innermost_mvproxy(frames)
            a_inner[lambda_clean(im) if im else "(outside mvproxy code) " + component(frame_type(frames[0]))] += w
    mb = lambda v: f"{v / 1e6:.0f}MB"
    print(f"  allocation samples: {len(al)}, sampled weight {w_total / 1e6:.0f} MB"
          + (f" (~{w_total / requests / 1024:.1f} KiB per request)" if requests else ""))
    print_rank(f"top {top} allocating frames (weight):", a_frame, w_total, top, fmt=mb)
    print_rank("allocated classes (weight):", a_class, w_total, 10, fmt=mb)
    print_rank("allocation by component:", a_comp, w_total, 12, fmt=mb)
    print_rank(f"allocation by innermost mvproxy frame (top {top}):", a_inner, w_total, top, fmt=mb)

    # GC
    gc = jfr_events(path, ["jdk.GarbageCollection", "jdk.GCHeapSummary", "jdk.GCConfiguration"])
    colls = [e for e in gc if e["type"] == "jdk.GarbageCollection"]
    names = collections.Counter(e["values"]["name"] for e in colls)

    def dur_ms(v):
        if isinstance(v, str):  # e.g. "PT0.0012S"
            m = re.match(r"PT(?:(\d+)M)?([\d.]+)S", v)
            return (int(m.group(1) or 0) * 60 + float(m.group(2))) * 1000 if m else 0.0
        return float(v) / 1e6
    pauses = sum(dur_ms(e["values"].get("sumOfPauses", 0)) for e in colls)
    heap = [e for e in gc if e["type"] == "jdk.GCHeapSummary"]
    allocated, last_after = 0, None
    for e in heap:
        used = e["values"]["heapUsed"]
        if e["values"]["when"] == "Before GC" and last_after is not None:
            allocated += used - last_after
        if e["values"]["when"] == "After GC":
            last_after = used
    gccfg = [e for e in gc if e["type"] == "jdk.GCConfiguration"]
    young = gccfg[0]["values"].get("youngCollector") if gccfg else "?"
    print(f"  GC ({young}): {len(colls)} collections {dict(names)}, total pause {pauses:.0f} ms; "
          f"heap allocated between GCs ~{allocated / 1e6:.0f} MB"
          + (f" (~{allocated / requests / 1024:.1f} KiB per request)" if requests else ""))

    # thread CPU: JFR's per-thread load, and /proc deltas of the same run when given
    cpu = jfr_events(path, ["jdk.ThreadCPULoad"])
    load = collections.defaultdict(list)
    for e in cpu:
        t = e["values"].get("eventThread") or {}
        load[t.get("javaName") or t.get("osName")].append(e["values"]["user"] + e["values"]["system"])
    # ThreadCPULoad is a fraction of the whole machine (all cores); x cores = fraction of one core
    ncpu = os.cpu_count()
    rows = sorted(((sum(v) / len(v) * ncpu, k) for k, v in load.items() if v), reverse=True)[:8]
    print(f"  thread CPU (JFR jdk.ThreadCPULoad, mean over the recording, 1.0 = one core busy):")
    for u, k in rows:
        print(f"    {u:5.2f}  {k}")
    if threads_path and os.path.exists(threads_path):
        d = json.loads(open(threads_path).read())
        proc = d["procs"].get(label.split()[0])
        if proc:
            print(f"  thread CPU (/proc/PID/task/*/schedstat over the wrk run, {d['wall_s']:.1f} s; 1.00 = one core):")
            for t in proc["threads"][:8]:
                name = tid_names.get(t["tid"], t["comm"])
                print(f"    {t['util']:5.2f}  {name} (tid {t['tid']})")

    # TLS handshakes, parks and monitor waits (profile.jfc thresholds: 10/20 ms) on event-loop threads
    misc = jfr_events(path, ["jdk.TLSHandshake", "jdk.ThreadPark", "jdk.JavaMonitorEnter", "jdk.JavaMonitorWait",
                             "jdk.SocketRead", "jdk.FileRead", "jdk.FileWrite"], stack_depth=12)
    ports = set((os.environ.get("NODE_PORTS") or "").split(","))

    def hs_key(v):
        side = (f"peer client -> {v.get('peerHost')}:{v.get('peerPort')}" if str(v.get("peerPort")) in ports
                else "server side, from clients")
        return f"{side} {v.get('protocolVersion')} {v.get('cipherSuite')}"
    hs = collections.Counter(hs_key(e["values"]) for e in misc if e["type"] == "jdk.TLSHandshake")
    print(f"  TLS handshakes completed during the recording (jdk.TLSHandshake): {sum(hs.values())}")
    for k, v in hs.most_common():
        print(f"    {v:6d}  {k}")
    ev_loop = collections.Counter()
    for e in misc:
        if e["type"] == "jdk.TLSHandshake":
            continue
        t = (e["values"].get("eventThread") or {}).get("javaName") or ""
        if "eventloop" in t:
            frames = e["values"]["stackTrace"]["frames"] if e["values"].get("stackTrace") else []
            where = " < ".join(lambda_clean(frame_name(f)) for f in frames[:4])
            ev_loop[f"{e['type']} {dur_ms(e['values'].get('duration', 0)):.0f}ms at {where}"] += 1
    print(f"  blocking events (park/monitor/socket/file over threshold) on event-loop threads: {sum(ev_loop.values())}")
    for k, v in ev_loop.most_common(8):
        print(f"    {v:4d}  {k}")


def cmd_record(run, target, wrk_path, delta_path, wrk_cpu_s):
    w = json.loads(open(wrk_path).read())
    d = json.loads(open(delta_path).read())
    nodes = sum(p["cores"] for p in d["procs"].values())
    wrk_cores = float(wrk_cpu_s) / d["wall_s"]
    print(json.dumps({"run": run, "target": target, "wrk": w, "cpu": d,
                      "wrk_us_per_req": float(wrk_cpu_s) * 1e6 / w["requests"] if w.get("requests") else 0,
                      "others_cores": max(0.0, d["machine_busy_cores"] - nodes - wrk_cores)}))


# ---------------------------------------------------------------------------------------------------- final table
def cmd_table(path):
    rows = [json.loads(l) for l in open(path) if l.strip()]
    print("\n| run | target | rps | p50 / p99 ms | non-2xx | node-a us/req | node-b us/req | a+b us/req "
          "| wrk us/req | JIT a / b (cores) | others (cores) | machine busy (cores) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")

    def jit(p):
        return sum(t["util"] for t in p.get("threads", []) if re.match(r"C[12] Compiler", t["comm"]))
    for r in rows:
        w, c = r["wrk"], r["cpu"]
        a = c["procs"].get("node-a", {}).get("us_per_req", 0)
        b = c["procs"].get("node-b", {}).get("us_per_req", 0)
        a2 = c["procs"].get("node-a", {}).get("us_per_req_no_jit", a)
        b2 = c["procs"].get("node-b", {}).get("us_per_req_no_jit", b)
        lat = w.get("latency", {})
        print(f"| {r['run']} | {r['target']} | {w['rps']:,.0f} | {lat.get('p50', 0):.2f} / {lat.get('p99', 0):.2f} "
              f"| {w['non2xx'] + w['socket_errors']} | {a:.0f} ({a2:.0f}) | {b:.0f} ({b2:.0f}) | {a + b:.0f} ({a2 + b2:.0f}) | {r.get('wrk_us_per_req', 0):.0f} "
              f"| {jit(c['procs'].get('node-a', {})):.2f} / {jit(c['procs'].get('node-b', {})):.2f} "
              f"| {r.get('others_cores', 0):.2f} | {c['machine_busy_cores']:.2f} |")
    direct = [r["wrk"]["rps"] for r in rows if r["target"] == "direct" and not r["run"].startswith("profiled")]
    hop = [r["wrk"]["rps"] for r in rows if r["target"] == "hop" and not r["run"].startswith("profiled")]
    if direct and hop:
        print(f"\nhop / direct (unprofiled runs, mean rps): {sum(hop) / len(hop):,.0f} / {sum(direct) / len(direct):,.0f}"
              f" = {sum(hop) / len(hop) / (sum(direct) / len(direct)):.2f}x")
    print("(us/req: CPU time of the process over the run / requests wrk completed, in brackets without the JIT "
          "compiler threads; node CPU = sum of every thread's "
          "/proc/PID/task/TID/schedstat or /proc/PID/stat utime+stime, whichever is larger; /proc/PID/schedstat alone "
          "counts only the JVM's main thread, which idles. JIT: C1+C2 compiler threads, should be ~0 once warm. "
          "others = machine busy - nodes - wrk: other processes' noise)")


def cmd_groups(results, names_a, names_b):
    """us per request by thread group, per node and run (the thread names from jcmd Thread.print)."""
    names = {"node-a": thread_names(names_a), "node-b": thread_names(names_b)}
    rows = [json.loads(l) for l in open(results) if l.strip()]
    groups = [g for g, _ in THREAD_GROUPS] + ["other"]
    print("\nCPU per request by thread group (us/req; /proc/PID/task/TID/schedstat; names from jcmd Thread.print):")
    print("| run | node | " + " | ".join(groups) + " | total | event loops in kernel |")
    print("|---|---|" + "---|" * (len(groups) + 2))
    for r in rows:
        req = r["wrk"].get("requests") or 0
        if not req:
            continue
        for node in ("node-a", "node-b"):
            p = r["cpu"]["procs"].get(node)
            if not p:
                continue
            acc = collections.Counter()
            for t in p["threads"]:
                acc[thread_group(names[node].get(t["tid"], t["comm"]))] += t["cpu_ms"]
            total = sum(acc.values())
            loops = [t for t in p["threads"] if thread_group(names[node].get(t["tid"], t["comm"])) == "event loops"]
            ut, st = sum(t.get("user_ticks", 0) for t in loops), sum(t.get("sys_ticks", 0) for t in loops)
            print(f"| {r['run']} | {node} | " + " | ".join(f"{acc[g] * 1e3 / req:.1f}" for g in groups)
                  + f" | {total * 1e3 / req:.1f} | {100 * st / (ut + st) if ut + st else 0:.0f}% |")


def cmd_syscalls(label, trace_path, names_path, requests):
    """Syscalls per request by thread group, from `perf trace -s -p PID` output."""
    names = thread_names(names_path)
    per = collections.defaultdict(collections.Counter)
    group = None
    for line in open(trace_path, errors="replace"):
        m = re.match(r"^\s*(.+?) \((\d+)\), \d+ events", line)
        if m:
            group = thread_group(names.get(int(m.group(2)), m.group(1)))
            continue
        m = re.match(r"^\s+([a-z_0-9]+)\s+(\d+)\s+\d+\s+[\d.]+", line)
        if m and group:
            per[group][m.group(1)] += int(m.group(2))
    print(f"  {label}: syscalls per request ({requests} requests; perf trace -s)")
    for g, c in sorted(per.items(), key=lambda x: -sum(x[1].values())):
        tot = sum(c.values())
        if tot / max(requests, 1) < 0.05:
            continue
        top = ", ".join(f"{k} {v / requests:.2f}" for k, v in c.most_common(6))
        print(f"    {g}: {tot / requests:.2f}  ({top})")


def main(argv):
    cmd = argv[1]
    if cmd == "jfc":
        cmd_jfc(argv[2], argv[3])
    elif cmd == "snap":
        cmd_snap(argv[2:])
    elif cmd == "wrk":
        cmd_wrk(argv[2])
    elif cmd == "delta":
        args = argv[2:]
        req = None
        if "--requests" in args:
            i = args.index("--requests")
            req = int(args[i + 1])
            del args[i:i + 2]
        cmd_delta(args[0], args[1], args[2:], req)
    elif cmd == "jfr":
        args = argv[3:]
        opts = {"--label": "", "--threads": None, "--requests": None, "--top": "15", "--names": None}
        while args:
            opts[args[0]] = args[1]
            args = args[2:]
        cmd_jfr(argv[2], opts["--label"], opts["--threads"], int(opts["--requests"]) if opts["--requests"] else None,
                int(opts["--top"]), opts["--names"])
    elif cmd == "record":
        cmd_record(*argv[2:7])
    elif cmd == "syscalls":
        cmd_syscalls(argv[2], argv[3], argv[4], int(argv[5]))
    elif cmd == "groups":
        cmd_groups(argv[2], argv[3], argv[4])
    elif cmd == "table":
        cmd_table(argv[2])
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv)

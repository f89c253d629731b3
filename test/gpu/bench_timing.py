"""One device timer for our kernels and torch's alike (bench_cuda.py): each sample replays a CUDA
graph of n launches between one pair of CUDA events, after an L2 flush; the per-launch time is
the sample / n, reported as the median (and p10, p90) of the samples. Launches cycle through the
callables given (pool rotation). Where graph capture fails (a kernel or library that cannot be
captured), the same n launches go out eagerly between the events and the method says so.
"""
from bench_plan import launches_per_sample, summarize


class DeviceTimer:
    def __init__(self, torch, l2_bytes):
        self.torch = torch
        # Writing 2x L2 (at least 256 MiB) evicts whatever the previous sample left in L2.
        self.flush_buffer = torch.empty(max(2 * l2_bytes, 256 << 20) // 4, dtype=torch.int32, device="cuda")

    def flush_l2(self):
        self.flush_buffer.zero_()

    def _events(self):
        cuda = self.torch.cuda
        return cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)

    def time(self, launches, samples=10, target_ms=20.0, max_launches=500):
        """launches: callables, each enqueuing one launch on torch's current stream.
        Returns summarize() of per-launch ms plus method ("cuda-graph" | "eager"), launchesPerSample."""
        torch = self.torch
        for fn in launches:  # warm-up: compiles, allocates, and surfaces errors before timing
            fn()
        torch.cuda.synchronize()
        self.flush_l2()
        start, end = self._events()
        start.record()
        launches[0]()
        end.record()
        end.synchronize()
        n = launches_per_sample(start.elapsed_time(end), target_ms, len(launches), max_launches, len(launches))

        def enqueue():
            for i in range(n):
                launches[i % len(launches)]()

        method, graph = "cuda-graph", None
        try:
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                enqueue()
            graph.replay()
            torch.cuda.synchronize()
        except Exception as e:  # noqa: BLE001 - any capture failure falls back to eager launches
            method, graph = f"eager (graph capture failed: {str(e).splitlines()[0][:120]})", None
            torch.cuda.synchronize()
        times = []
        for _ in range(samples):
            self.flush_l2()
            start, end = self._events()
            start.record()
            if graph is not None:
                graph.replay()
            else:
                enqueue()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / n)
        del graph
        return {**summarize(times), "method": method, "launchesPerSample": n}

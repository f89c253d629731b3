/**
 * `attnscope submit --k8s`: a sweep as one Kubernetes Indexed Job (batch/v1, completionMode
 * Indexed). Kubernetes schedules; pod i gets JOB_COMPLETION_INDEX=i, and the manifest sets
 * ATTNSCOPE_SHARD_COUNT to `completions`, so each pod's `attnscope sweep` runs shard i of N
 * (runner/sweep/local.ts shardFromEnvironment). The profile and its model configs travel in a
 * ConfigMap mounted at /sweep (same file names, same relative layout, so the sweep's identity
 * is unchanged); results go to a PersistentVolumeClaim mounted at /results, from which
 * `attnscope merge` reads them once copied out (`kubectl cp`).
 */
import type { Backend } from '../../core/config/types';
import { modelledJob } from '../../core/protocol/sweep';
import { readFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, relative, sep } from 'node:path';
import * as YAML from 'yaml';
import { shardCommand } from './slurm';
import type { SweepPlan } from './spec';

/** Where the pod sees the profile folder and the results volume. */
export const K8S_SWEEP_DIR = '/sweep';
export const K8S_RESULTS_DIR = '/results';

export interface IndexedJobOptions {
  /** Container image with `attnscope` on its PATH (e.g. built from this repository with `npm install -g`). */
  image: string;
  /** Pods (shards) in all, = completions = parallelism unless `parallelism` is given. */
  tasks: number;
  parallelism?: number;
  /** The PersistentVolumeClaim the results go to (ReadWriteMany when pods land on several nodes). */
  pvc: string;
  gpusPerTask?: number;
  cpusPerTask?: number;
  namespace?: string;
  quick: boolean;
  backend: Backend;
}

// The grammar of github.com/distribution/reference (reference.go), which Docker, containerd and
// the kubelet parse image names with: [domain[:port]/]path[:tag][@algorithm:hex].
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)';
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const IMAGE_REFERENCE = new RegExp(
  `^(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*(?::[0-9]+)?/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*` +
    '(?::[\\w][\\w.-]{0,127})?(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?$',
);
/** Kubernetes' DNS-1123 subdomain (IsDNS1123Subdomain): lowercase alphanumerics, '-' and '.', at most 253 characters. */
const DNS1123_SUBDOMAIN = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;
/** Kubernetes' DNS-1123 label (IsDNS1123Label), a namespace's name: at most 63 characters, no '.'. */
const DNS1123_LABEL = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?$/;

/**
 * Why `image`, `pvc` or `namespace` would not be accepted by Kubernetes, as `[flag, reason]`, or
 * null when all are valid: an image reference ([registry[:port]/]name[:tag][@sha256:digest], the
 * repository name at most 255 characters), a claim name (DNS-1123 subdomain) and a namespace
 * (DNS-1123 label).
 */
export function k8sNameProblem(opts: Pick<IndexedJobOptions, 'image' | 'pvc' | 'namespace'>): [string, string] | null {
  const name = opts.image.replace(/@.*$/, '').replace(/:[\w][\w.-]*$/, '');
  if (!IMAGE_REFERENCE.test(opts.image) || name.length > 255) {
    return ['--image', 'not an image reference: [registry[:port]/]name[:tag][@sha256:digest], the name in lowercase letters, digits and . _ - / (e.g. ghcr.io/acme/attnscope:0.1.0)'];
  }
  if (!DNS1123_SUBDOMAIN.test(opts.pvc) || opts.pvc.length > 253) {
    return ['--pvc', "not a PersistentVolumeClaim name: lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters (DNS-1123 subdomain)"];
  }
  if (opts.namespace !== undefined && (!DNS1123_LABEL.test(opts.namespace) || opts.namespace.length > 63)) {
    return ['--namespace', "not a namespace name: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters (DNS-1123 label)"];
  }
  return null;
}

/** Thrown when the profile cannot travel in a ConfigMap (a model config outside the profile's folder). */
export class ManifestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ManifestError';
  }
}

/** A Kubernetes object name from the sweep: lower case, digits and '-', at most 63 characters. */
function objectName(plan: SweepPlan): string {
  const stem = plan.name.replace(/\.attn\.(ya?ml|json)$/i, '').toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
  return `attnscope-${stem.slice(0, 32) || 'sweep'}-${plan.sweepId.slice(0, 8)}`;
}

/** The results folder of the sweep inside the volume: /results/<name>. */
export function k8sResultsDir(plan: SweepPlan): string {
  return `${K8S_RESULTS_DIR}/${objectName(plan)}`;
}

/**
 * The ConfigMap and the Indexed Job, as one multi-document YAML text (`kubectl apply -f`).
 * @throws ManifestError when a model config lies outside the profile's folder.
 */
export function indexedJobManifest(plan: SweepPlan, opts: IndexedJobOptions): string {
  const name = objectName(plan);
  const profileDir = dirname(plan.absFile);
  // The files of the ConfigMap: key -> (path under /sweep, text). Keys may not hold '/'.
  const files: Array<{ key: string; path: string; text: string }> = [{ key: 'profile', path: basename(plan.absFile), text: readFileSync(plan.absFile, 'utf8') }];
  const models = [...new Set(plan.points.map((p) => p.profile.modelPath).filter((m): m is string => m !== null))].sort();
  models.forEach((m, i) => {
    const rel = relative(profileDir, m);
    if (rel.startsWith('..') || isAbsolute(rel)) {
      throw new ManifestError(`the model config ${m} is outside the profile's folder ${profileDir}: move it beside the profile (or bake both into the image)`);
    }
    files.push({ key: `model-${i}`, path: rel.split(sep).join('/'), text: readFileSync(m, 'utf8') });
  });
  const labels = { 'app.kubernetes.io/name': 'attnscope', 'app.kubernetes.io/component': 'sweep', 'attnscope/sweep-id': plan.sweepId };
  const meta = (n: string) => ({ name: n, ...(opts.namespace ? { namespace: opts.namespace } : {}), labels });
  const configMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: meta(name),
    data: Object.fromEntries(files.map((f) => [f.key, f.text])),
  };
  const command = shardCommand(plan, ['attnscope'], `${K8S_SWEEP_DIR}/${basename(plan.absFile)}`, k8sResultsDir(plan), {
    quick: opts.quick,
    backend: opts.backend,
    // A pod times its benchmark points one at a time (as a local benchmark sweep and a Slurm task do); it simulates one per CPU it requests.
    jobs: !modelledJob(plan.job) ? '1' : String(opts.cpusPerTask ?? 1),
  });
  const resources: Record<string, Record<string, string | number>> = {};
  if (opts.cpusPerTask) resources.requests = { cpu: String(opts.cpusPerTask) };
  if (opts.gpusPerTask) resources.limits = { 'nvidia.com/gpu': opts.gpusPerTask };
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: meta(name),
    spec: {
      completionMode: 'Indexed',
      completions: opts.tasks,
      parallelism: opts.parallelism ?? opts.tasks,
      // A failed pod is retried; its shard resumes (finished points are on the volume).
      backoffLimit: opts.tasks,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'sweep',
              image: opts.image,
              command,
              workingDir: K8S_SWEEP_DIR,
              env: [{ name: 'ATTNSCOPE_SHARD_COUNT', value: String(opts.tasks) }],
              ...(Object.keys(resources).length > 0 ? { resources } : {}),
              volumeMounts: [
                { name: 'sweep', mountPath: K8S_SWEEP_DIR, readOnly: true },
                { name: 'results', mountPath: K8S_RESULTS_DIR },
              ],
            },
          ],
          volumes: [
            { name: 'sweep', configMap: { name, items: files.map((f) => ({ key: f.key, path: f.path })) } },
            { name: 'results', persistentVolumeClaim: { claimName: opts.pvc } },
          ],
        },
      },
    },
  };
  const header = `# attnscope sweep ${plan.name} (sweep ${plan.sweepId}): ${plan.points.length} points in ${opts.tasks} pods of an Indexed Job.\n# kubectl apply -f <this file>; results in ${k8sResultsDir(plan)} on PVC ${opts.pvc}.\n`;
  return header + [configMap, job].map((d) => YAML.stringify(d, { lineWidth: 0 })).join('---\n');
}

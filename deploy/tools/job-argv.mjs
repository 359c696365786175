#!/usr/bin/env node
// Prints the command line of one container of the Job in a rendered
// manifest, so that deploy/check.sh can run the Job's commands in the image.
//
//   node deploy/tools/job-argv.mjs FILE.yaml INDEX
//
// INDEX counts the Job's init containers first, then its containers, in
// order. Prints the container's name, then its command and args, one per
// line. Exits 3 when there is no such container, 2 on bad usage.
import { readFileSync } from "node:fs";
import { parseAllDocuments } from "yaml";

const [file, index] = process.argv.slice(2);
if (!file || !/^\d+$/.test(index ?? "")) {
  console.error("usage: job-argv.mjs FILE.yaml INDEX");
  process.exit(2);
}
const jobs = parseAllDocuments(readFileSync(file, "utf8"))
  .map((d) => d.toJS())
  .filter((o) => o?.kind === "Job");
if (jobs.length !== 1) {
  console.error(`${file}: expected one Job, found ${jobs.length}`);
  process.exit(2);
}
const pod = jobs[0].spec?.template?.spec ?? {};
const containers = [...(pod.initContainers ?? []), ...(pod.containers ?? [])];
const c = containers[Number(index)];
if (!c) process.exit(3);
for (const line of [c.name, ...(c.command ?? []), ...(c.args ?? [])]) console.log(line);

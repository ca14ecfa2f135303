// Starts a server as a child process with its own port and environment, and waits until it answers HTTP.
import { spawn } from 'node:child_process';
import http from 'node:http';

const START_TIMEOUT_MS = 60_000;

/** A server already answering there would be measured instead of ours: most likely another benchmark run. */
export async function assertPortFree(port) {
  if (await answers(`http://127.0.0.1:${port}/`)) throw new Error(`port ${port} is in use; is another benchmark running?`);
}

export async function startProcess(name, args, { cwd, port, env }) {
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env, SERVER_PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (!(await answers(`${url}/api/tickets/1`))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`${name} did not start (exit code ${child.exitCode}): ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    name,
    url,
    pid: child.pid,
    kill(signal = 'SIGKILL') {
      child.kill(signal);
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function answers(url) {
  return new Promise((resolve) => {
    const req = http.get(url, (res) => {
      res.resume();
      resolve(true);
    });
    req.on('error', () => resolve(false));
  });
}

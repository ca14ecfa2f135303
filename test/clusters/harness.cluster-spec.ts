import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import amqp from 'amqplib';
import { type Connection } from 'mysql2/promise';
import { GaleraCluster } from '../support/clusters/galera-cluster.js';
import { isAlive, rssMiB, sleep, waitFor } from '../support/clusters/processes.js';
import { RabbitCluster } from '../support/clusters/rabbitmq-cluster.js';

/**
 * Proves the cluster harness: each cluster forms with 3 members, keeps serving after a node is killed, takes
 * the node back, and leaves no process behind. The Galera part also records two facts the outbox relay's lease
 * code depends on (GET_LOCK scope, what a lost conditional UPDATE looks like); they are printed and asserted.
 */

const report = (line: string) => process.stdout.write(`[cluster harness] ${line}\n`);

describe('RabbitMQ cluster harness', () => {
  const cluster = new RabbitCluster();
  let stopped = false;

  beforeAll(async () => {
    await cluster.start();
    report(
      `RabbitMQ start() ${cluster.startMs} ms ${JSON.stringify(cluster.startPhasesMs)}; nodes ${cluster.nodes.map((node) => `${node.name} amqp ${node.amqpPort} pid ${node.pid} ${rssMiB(node.pid)} MiB`).join(', ')}`,
    );
  });
  afterAll(async () => {
    if (!stopped) await cluster.stop();
  });

  it('forms a cluster of 3 running nodes, each on its own AMQP port', async () => {
    const running = await cluster.runningNodes(0);
    expect([...running].sort()).toEqual(cluster.nodes.map((node) => node.name).sort());
    expect(new Set(cluster.nodes.map((node) => node.amqpPort)).size).toBe(3);
    expect(cluster.nodes.map((node) => node.amqpPort)).not.toContain(5672);
  });

  it('tells which node a named client connection is on', async () => {
    const connection = await amqp.connect(cluster.amqpUrls[2], { clientProperties: { connection_name: 'harness-probe' } });
    try {
      expect(await waitFor('the probe connection to be listed', 10_000, () => cluster.connectionNode('harness-probe'))).toBe(2);
    } finally {
      await connection.close();
    }
  });

  it('keeps a quorum queue serving through a surviving node after its leader is killed, and takes the node back', async () => {
    const queue = 'harness.quorum';
    const declaring = await amqp.connect(cluster.amqpUrls[0]);
    const setup = await declaring.createChannel();
    await setup.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    await declaring.close();

    const leader = await cluster.queueLeader(queue);
    const killedAt = Date.now();
    await cluster.kill(leader);
    expect(cluster.isRunning(leader)).toBe(false);
    const survivor = [0, 1, 2].find((i) => i !== leader)!;

    const connection = await amqp.connect(cluster.amqpUrls[survivor]);
    connection.on('error', () => undefined);
    try {
      // Until the remaining members have elected a new leader the broker nacks publishes to the queue, and
      // on 3.10.8 a channel that got such a nack was seen to keep nacking after the election; so each retry
      // uses a new channel (a nacked message may still be enqueued, hence a body per attempt).
      const publish = (target: amqp.ConfirmChannel, body: string) =>
        new Promise<unknown>((resolve) => target.sendToQueue(queue, Buffer.from(body), { persistent: true }, resolve));
      const firstChannel = await connection.createConfirmChannel();
      let channel = firstChannel;
      const attempts: string[] = [];
      let confirmed: string | undefined;
      while (!confirmed) {
        const body = `after-failover-${attempts.length + 1}`;
        const error = await publish(channel, body);
        attempts.push(`${body} ${error ? 'nacked' : 'confirmed'} at ${Date.now() - killedAt} ms`);
        if (!error) confirmed = body;
        else if (Date.now() - killedAt > 60_000)
          throw new Error(`No publish confirmed after the leader was killed: ${attempts.join(', ')}`);
        else {
          await sleep(250);
          if (channel !== firstChannel) await channel.close();
          channel = await connection.createConfirmChannel();
        }
      }
      report(`RabbitMQ: publishes through node ${survivor + 1} after killing leader node ${leader + 1}: ${attempts.join(', ')}`);
      if (channel !== firstChannel) {
        const again = await publish(firstChannel, 'first-channel-again');
        report(`RabbitMQ: the first channel, publishing again after a new channel got its confirm: ${again ? 'nacked' : 'confirmed'}`);
      }
      const received: string[] = [];
      await waitFor(
        'the confirmed message on the quorum queue',
        30_000,
        async () => {
          const message = await channel.get(queue, { noAck: false });
          if (message) {
            received.push(message.content.toString());
            channel.ack(message);
          }
          return received.includes(confirmed!);
        },
        100,
      );
      for (let message = await channel.get(queue, { noAck: true }); message; message = await channel.get(queue, { noAck: true })) {
        received.push(message.content.toString());
      }
      report(`RabbitMQ: consumed through node ${survivor + 1} (all the queue held): ${received.join(', ')}`);
      expect(received).toContain(confirmed);
      const newLeader = await cluster.queueLeader(queue);
      expect(newLeader).not.toBe(leader);
      report(`RabbitMQ: quorum queue leader moved from node ${leader + 1} to node ${newLeader + 1}`);
    } finally {
      await connection.close();
    }

    const restartedAt = Date.now();
    await cluster.restart(leader);
    await waitFor(
      'the restarted node to be running in the cluster',
      60_000,
      async () => (await cluster.runningNodes(survivor)).length === 3,
    );
    report(`RabbitMQ restart(${leader}) ${Date.now() - restartedAt} ms`);
  });

  it('stops every process it started', async () => {
    const stoppedAt = Date.now();
    await cluster.stop();
    stopped = true;
    report(`RabbitMQ stop() ${Date.now() - stoppedAt} ms`);
    expect(cluster.pids().length).toBeGreaterThanOrEqual(7); // epmd, 3 start scripts, 3 VMs (4 of each after the restart)
    expect(cluster.pids().filter(isAlive)).toEqual([]);
  });
});

describe('Galera cluster harness', () => {
  const cluster = new GaleraCluster();
  let stopped = false;
  const open: Connection[] = [];
  const connect = async (i: number, database?: string) => {
    const connection = await cluster.connect(i, database);
    connection.on('error', () => undefined); // connections to a killed node fail; that is expected
    open.push(connection);
    return connection;
  };

  beforeAll(async () => {
    await cluster.start();
    report(
      `Galera start() ${cluster.startMs} ms ${JSON.stringify(cluster.startPhasesMs)}; nodes ${cluster.nodes.map((node) => `port ${node.port} pid ${node.pid} ${rssMiB(node.pid)} MiB`).join(', ')}`,
    );
  });
  afterAll(async () => {
    for (const connection of open) connection.destroy();
    if (!stopped) await cluster.stop();
  });

  it('forms a cluster of 3 synced nodes', async () => {
    for (let i = 0; i < 3; i++) {
      expect(await cluster.status(i, 'wsrep_cluster_size')).toBe('3');
      expect(await cluster.status(i, 'wsrep_ready')).toBe('ON');
      expect(await cluster.status(i, 'wsrep_local_state_comment')).toBe('Synced');
    }
    expect(cluster.nodes.map((node) => node.port)).not.toContain(3306);
  });

  it('GET_LOCK is node-local: a lock held on node 1 is granted again on node 2', async () => {
    const holder = await connect(0);
    const otherNode = await connect(1);
    const sameNode = await connect(0);
    const lock = async (connection: Connection) => {
      const [rows] = await connection.query("SELECT GET_LOCK('x', 0) AS granted");
      return (rows as { granted: number | null }[])[0].granted;
    };
    expect(await lock(holder)).toBe(1);
    const onOtherNode = await lock(otherNode);
    const onSameNode = await lock(sameNode);
    report(`Galera GET_LOCK('x',0): held on node 1; node 2 answers ${onOtherNode}, another session on node 1 answers ${onSameNode}`);
    expect(onOtherNode).toBe(1);
    expect(onSameNode).toBe(0);
  });

  it('a conditional lease UPDATE committed concurrently on two nodes has one winner; the loser gets ER_LOCK_DEADLOCK', async () => {
    const admin = await connect(0);
    await admin.query('CREATE DATABASE lease_probe');
    await admin.query('CREATE TABLE lease_probe.t (id INT PRIMARY KEY, owner VARCHAR(32) NOT NULL, expires_at DATETIME(3) NOT NULL)');
    const take = 'UPDATE t SET owner = ?, expires_at = NOW(3) + INTERVAL 10 SECOND WHERE id = 1 AND (owner = ? OR expires_at < NOW(3))';
    const outcome = (result: PromiseSettledResult<unknown>) =>
      result.status === 'fulfilled'
        ? 'committed'
        : `${(result.reason as { errno?: number }).errno} ${(result.reason as { sqlState?: string }).sqlState} ${(result.reason as Error).message}`;

    // Explicit transactions: both UPDATEs match locally (row locks are per node), the commits race.
    const rounds: string[][] = [];
    for (let round = 0; round < 5; round++) {
      await admin.query('REPLACE INTO lease_probe.t VALUES (1, ?, NOW(3) - INTERVAL 1 SECOND)', [`expired-${round}`]);
      const a = await connect(0, 'lease_probe');
      const b = await connect(1, 'lease_probe');
      await b.query('SET SESSION wsrep_sync_wait = 1'); // B must see the expired row before it updates
      await Promise.all([a.query('BEGIN'), b.query('BEGIN')]);
      const [ra, rb] = await Promise.all([a.query(take, ['A', 'A']), b.query(take, ['B', 'B'])]);
      const affected = [(ra[0] as { affectedRows: number }).affectedRows, (rb[0] as { affectedRows: number }).affectedRows];
      const commits = await Promise.allSettled([a.query('COMMIT'), b.query('COMMIT')]);
      const check = await connect(2, 'lease_probe');
      await check.query('SET SESSION wsrep_sync_wait = 1');
      const [rows] = await check.query('SELECT owner FROM t WHERE id = 1');
      const owner = (rows as { owner: string }[])[0].owner;
      rounds.push([
        `affected A=${affected[0]} B=${affected[1]}`,
        `COMMIT A: ${outcome(commits[0])}`,
        `COMMIT B: ${outcome(commits[1])}`,
        `owner ${owner}`,
      ]);
      const winners = commits.filter((commit) => commit.status === 'fulfilled');
      expect(winners).toHaveLength(1);
      const loser = commits.find((commit) => commit.status === 'rejected') as PromiseRejectedResult;
      expect((loser.reason as { errno: number }).errno).toBe(1213);
      expect(owner).toBe(commits[0].status === 'fulfilled' ? 'A' : 'B');
    }
    for (const [i, round] of rounds.entries()) report(`Galera lease UPDATE in transactions, round ${i + 1}: ${round.join('; ')}`);

    // Autocommit statements fired at the same time (wsrep_retry_autocommit is left at its default).
    const tally = new Map<string, number>();
    for (let round = 0; round < 10; round++) {
      await admin.query('REPLACE INTO lease_probe.t VALUES (1, ?, NOW(3) - INTERVAL 1 SECOND)', [`expired-${round}`]);
      const a = await connect(0, 'lease_probe');
      const b = await connect(1, 'lease_probe');
      await b.query('SET SESSION wsrep_sync_wait = 1');
      const results = await Promise.allSettled([a.query(take, ['A', 'A']), b.query(take, ['B', 'B'])]);
      const described = results.map((result) =>
        result.status === 'fulfilled' ? `affected ${(result.value[0] as { affectedRows: number }).affectedRows}` : outcome(result),
      );
      const won = results.filter(
        (result) => result.status === 'fulfilled' && (result.value[0] as { affectedRows: number }).affectedRows === 1,
      );
      expect(won.length).toBeLessThanOrEqual(1);
      const key = `A: ${described[0]} | B: ${described[1]}`;
      tally.set(key, (tally.get(key) ?? 0) + 1);
    }
    const [retry] = await admin.query("SHOW VARIABLES LIKE 'wsrep_retry_autocommit'");
    report(
      `Galera lease UPDATE autocommit x10 (wsrep_retry_autocommit=${(retry as { Value: string }[])[0].Value}): ${[...tally].map(([key, count]) => `${count}x [${key}]`).join(', ')}`,
    );
  });

  it('keeps serving after node 1 is killed: a write on node 2 is read on node 3, and takes node 1 back', async () => {
    await (await connect(0)).query('CREATE DATABASE failover_probe');
    await (await connect(0)).query('CREATE TABLE failover_probe.t (id INT PRIMARY KEY, note VARCHAR(32))');
    const writer = await connect(1, 'failover_probe');
    const reader = await connect(2, 'failover_probe');
    await reader.query('SET SESSION wsrep_sync_wait = 1');

    const killedAt = Date.now();
    await cluster.kill(0);
    expect(cluster.isRunning(0)).toBe(false);
    await writer.query("INSERT INTO t VALUES (1, 'after-kill')");
    report(`Galera: write on node 2 committed ${Date.now() - killedAt} ms after killing node 1`);
    const [rows] = await reader.query('SELECT note FROM t WHERE id = 1');
    expect(rows).toEqual([{ note: 'after-kill' }]);
    await waitFor('node 2 to see a cluster of 2', 30_000, async () => (await cluster.status(1, 'wsrep_cluster_size')) === '2');
    report(`Galera: node 2 sees a cluster of 2 ${Date.now() - killedAt} ms after the kill`);

    const restartedAt = Date.now();
    await cluster.restart(0);
    report(`Galera restart(0) ${Date.now() - restartedAt} ms`);
    expect(await cluster.status(0, 'wsrep_cluster_size')).toBe('3');
    const back = await connect(0, 'failover_probe');
    await back.query('SET SESSION wsrep_sync_wait = 1');
    expect((await back.query('SELECT note FROM t WHERE id = 1'))[0]).toEqual([{ note: 'after-kill' }]);
  });

  it('stops every process it started', async () => {
    for (const connection of open.splice(0)) connection.destroy();
    const stoppedAt = Date.now();
    await cluster.stop();
    stopped = true;
    report(`Galera stop() ${Date.now() - stoppedAt} ms`);
    expect(cluster.pids().length).toBeGreaterThanOrEqual(3);
    expect(cluster.pids().filter(isAlive)).toEqual([]);
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { exportJWK, generateKeyPair, importJWK, type JWK, type JWTPayload, SignJWT } from 'jose';

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

export type Algorithm = 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512' | 'EdDSA';

interface SigningKey {
  kid: string;
  alg: Algorithm;
  privateKey: PrivateKey;
  jwk: JWK;
}

export interface TokenOptions {
  /** Key id to sign with (a key made by addKey); the first key by default. */
  kid?: string;
  /** The algorithm in the header and of the signature, when not the key's own. */
  alg?: Algorithm;
  /** Claims on top of the defaults (iss, aud, sub, iat, exp in 5 minutes); `undefined` removes one. */
  claims?: Record<string, unknown>;
}

/**
 * An OpenID provider of the test's own on a random local port: the discovery document at
 * /.well-known/openid-configuration, the key set at /jwks (only the keys `publish` names), and tokens signed with
 * jose. `hang()` makes it accept connections and never answer.
 */
export class TestIssuer {
  readonly keys = new Map<string, SigningKey>();
  jwksFetches = 0;
  private published: string[] = [];
  private hanging = false;
  private readonly sockets = new Set<Socket>();

  private constructor(private readonly server: Server) {}

  static async start(): Promise<TestIssuer> {
    const server = createServer();
    const issuer = new TestIssuer(server);
    server.on('request', (req, res) => {
      if (issuer.hanging) return;
      if (req.url === '/.well-known/openid-configuration') {
        res.setHeader('content-type', 'application/json').end(JSON.stringify({ issuer: issuer.url, jwks_uri: issuer.jwksUri }));
      } else if (req.url === '/jwks') {
        issuer.jwksFetches++;
        const keys = issuer.published.map((kid) => issuer.keys.get(kid)!.jwk);
        res.setHeader('content-type', 'application/json').end(JSON.stringify({ keys }));
      } else {
        res.writeHead(404).end();
      }
    });
    server.on('connection', (socket) => {
      issuer.sockets.add(socket);
      socket.on('close', () => issuer.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer.port = (server.address() as AddressInfo).port;
    return issuer;
  }

  /** Kept from the start, so tokens can still be made after stop() (for an issuer that is gone). */
  private port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get jwksUri(): string {
    return `${this.url}/jwks`;
  }

  /** Makes a key pair; published in the key set unless told otherwise. */
  async addKey(kid: string, alg: Algorithm, { publish = true } = {}): Promise<void> {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    this.keys.set(kid, { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } });
    if (publish) this.published.push(kid);
  }

  /** Serves exactly these keys from now on (a rotation). */
  publish(...kids: string[]): void {
    this.published = kids;
  }

  async token({ kid, alg, claims = {} }: TokenOptions = {}): Promise<string> {
    const key = this.keys.get(kid ?? [...this.keys.keys()][0])!;
    const now = Math.floor(Date.now() / 1000);
    const payload: Record<string, unknown> = { iss: this.url, aud: 'ticket-service', sub: 'alice', iat: now, exp: now + 300, ...claims };
    for (const name of Object.keys(payload)) if (payload[name] === undefined) delete payload[name];
    // Another algorithm of the same key type signs with the same key material, imported for that algorithm.
    const signingKey = alg && alg !== key.alg ? await importJWK(await exportJWK(key.privateKey), alg) : key.privateKey;
    return new SignJWT(payload as JWTPayload).setProtectedHeader({ alg: alg ?? key.alg, kid: key.kid, typ: 'JWT' }).sign(signingKey);
  }

  hang(): void {
    this.hanging = true;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/**
 * An issuer with one RS256 key for the enclosing describe block, and `env`, filled in before the block's apps start
 * (call it before useTestApp), with the settings that make an app trust it: its URI and the `ticket-service` audience.
 */
export function useTestIssuer(env: Record<string, string>): { issuer: TestIssuer } {
  const handle = {} as { issuer: TestIssuer };
  beforeAll(async () => {
    handle.issuer = await TestIssuer.start();
    await handle.issuer.addKey('rsa-1', 'RS256');
    const jwt = 'SPRING_SECURITY_OAUTH2_RESOURCESERVER_JWT_';
    Object.assign(env, { [`${jwt}ISSUERURI`]: handle.issuer.url, [`${jwt}AUDIENCES`]: 'ticket-service' });
  });
  afterAll(() => handle.issuer?.stop());
  return handle;
}

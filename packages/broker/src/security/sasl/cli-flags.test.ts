// Command-line users and the listener settings they turn on; bad values are
// refused with a message that names the setting and never echoes a password.
import { describe, expect, it } from "vitest";
import { applySettings, configFromArgs } from "../../config-sources.ts";
import { ConfigError, DEFAULT_CONFIG } from "../../config.ts";
import { applySaslAdmin, extractSaslFlags } from "./cli-flags.ts";

describe("--sasl-admin / --sasl-user", () => {
  it("are taken out of argv; passwords may contain colons", () => {
    const f = extractSaslFlags(["--port", "9092", "--sasl-admin", "root:a:b", "--sasl-user=eve:pw", "--sasl-user", "bob:x"]);
    expect(f.rest).toEqual(["--port", "9092"]);
    expect(f.admin).toEqual({ name: "root", password: "a:b" });
    expect(f.users).toEqual([{ name: "eve", password: "pw" }, { name: "bob", password: "x" }]);
  });

  it("refuse a value without user or password, without repeating it", () => {
    for (const bad of ["justapassword", ":pw", "user:"]) {
      let message = "";
      try {
        extractSaslFlags(["--sasl-user", bad]);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toContain("--sasl-user expects <user>:<password>");
      expect(message).not.toContain(bad);
    }
    expect(() => extractSaslFlags(["--sasl-admin", "a:b", "--sasl-admin", "c:d"])).toThrow(/once/);
  });

  it("the admin turns on SASL_PLAINTEXT on host:port, the authorizer and a super user, keeping explicit choices", () => {
    const c = applySaslAdmin(configFromArgs(["--port", "9192"]), { name: "root", password: "pw" });
    expect(c.listeners).toBe("SASL_PLAINTEXT://127.0.0.1:9192");
    expect(c["authorizer.class.name"]).toBe("standard");
    expect(c["super.users"]).toBe("User:root");
    const explicit = applySaslAdmin(configFromArgs(["--override", "listeners=SASL_SSL://127.0.0.1:9093", "--ssl.keystore.location=/k.pem", "--super.users=User:ops"]), {
      name: "root",
      password: "distinctive-secret-8d1",
    });
    expect(explicit.listeners).toBe("SASL_SSL://127.0.0.1:9093");
    expect(explicit["super.users"]).toBe("User:ops;User:root");
    // The settings (which DescribeConfigs exposes) never hold the password.
    expect(JSON.stringify(explicit)).not.toContain("distinctive-secret-8d1");
  });
});

describe("listener settings", () => {
  it("accept several listeners and custom names from the protocol map", () => {
    const c = applySettings(DEFAULT_CONFIG, {
      listeners: "SASL_PLAINTEXT://127.0.0.1:9092,PLAINTEXT://127.0.0.1:9093,INTERNAL://:9094",
      "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,INTERNAL:PLAINTEXT",
      "advertised.listeners": "SASL_PLAINTEXT://kafka.example:9092",
    });
    expect(c.listeners).toContain("INTERNAL://:9094");
    expect(c.port).toBe(9092);
  });

  it("refuse bad values, naming the setting", () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ listeners: "HTTP://127.0.0.1:80" }, /listeners.*HTTP/],
      [{ listeners: "PLAINTEXT://127.0.0.1:9092,SASL_PLAINTEXT://127.0.0.1:9092" }, /port 9092/],
      [{ listeners: "PLAINTEXT://127.0.0.1:9092,PLAINTEXT://127.0.0.1:9093" }, /more than once/],
      [{ listeners: "PLAINTEXT://127.0.0.1:9092", "advertised.listeners": "SSL://h:9093" }, /SSL, which is not in listeners/],
      [{ listeners: "PLAINTEXT://127.0.0.1:9092", "advertised.listeners": "PLAINTEXT://0.0.0.0:9092" }, /reachable host/],
      [{ listeners: "SSL://127.0.0.1:9093" }, /ssl\.keystore\.location/],
      [{ listeners: "SSL://127.0.0.1:9093", "ssl.certificate.location": "/c.pem" }, /ssl\.key\.location/],
      [{ "sasl.enabled.mechanisms": "GSSAPI" }, /sasl\.enabled\.mechanisms/],
      [{ "listener.security.protocol.map": "A:B" }, /listener\.security\.protocol\.map/],
    ];
    for (const [settings, message] of cases) {
      expect(() => applySettings(DEFAULT_CONFIG, settings), JSON.stringify(settings)).toThrow(ConfigError);
      expect(() => applySettings(DEFAULT_CONFIG, settings), JSON.stringify(settings)).toThrow(message);
    }
  });
});

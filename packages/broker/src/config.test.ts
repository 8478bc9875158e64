import { describe, expect, it } from "vitest";
import { configFromArgs, parseProperties } from "./config-sources.ts";
import { ConfigError, DEFAULT_CONFIG, resolveConfig } from "./config.ts";

describe("broker settings", () => {
  it("uses Kafka's names and defaults", () => {
    const c = configFromArgs([]);
    expect(c).toEqual(DEFAULT_CONFIG);
    expect(c["auto.create.topics.enable"]).toBe(true);
    expect(c["group.initial.rebalance.delay.ms"]).toBe(3000);
    expect(c["socket.request.max.bytes"]).toBe(104857600);
  });

  it("reads flags, --override, --name=value and a properties file, later flags winning", () => {
    const c = configFromArgs(["--port", "19092", "--data-dir", "/tmp/x", "--override", "num.partitions=3", "--auto.create.topics.enable=false", "--log.retention.hours=2"]);
    expect(c).toMatchObject({ port: 19092, "log.dirs": "/tmp/x", "num.partitions": 3, "auto.create.topics.enable": false, "log.retention.ms": 7_200_000 });
    expect(
      parseProperties("# comment\nbroker.id=3\nlisteners=PLAINTEXT://0.0.0.0:9093\nadvertised.listeners = PLAINTEXT://kafka.local:19093\nlog.dirs=/data/\\\n  kafka\n"),
    ).toEqual({ "broker.id": "3", listeners: "PLAINTEXT://0.0.0.0:9093", "advertised.listeners": "PLAINTEXT://kafka.local:19093", "log.dirs": "/data/kafka" });
  });

  it("accepts the broker settings Kafka accepts even where one node cannot honour them", () => {
    const c = configFromArgs(["--default.replication.factor=3", "--delete.topic.enable=false", "--connections.max.idle.ms=-1"]);
    expect([c["default.replication.factor"], c["delete.topic.enable"], c["connections.max.idle.ms"]]).toEqual([3, false, -1]);
  });

  it("refuses unknown settings and bad values with a message naming the setting", () => {
    expect(() => configFromArgs(["--no.such.setting=1"])).toThrow(/unknown broker setting "no.such.setting"/);
    expect(() => configFromArgs(["--port", "http"])).toThrow(/port must be an integer/);
    expect(() => configFromArgs(["--num.partitions=0"])).toThrow(/num.partitions must be an integer in \[1,/);
    expect(() => configFromArgs(["--default.replication.factor=0"])).toThrow(ConfigError);
    expect(() => configFromArgs(["--auto.create.topics.enable=yes"])).toThrow(/true or false/);
    expect(() => configFromArgs(["--bogus"])).toThrow(/unknown argument "--bogus"/);
    expect(() => resolveConfig({ "log.segment.bytes": 5 })).toThrow(/log.segment.bytes/);
  });
});

// The consume-transform-produce chain of issue 28, a bench tool for bench/apache-kafka.ts (compiled there
// with `javac` against the pinned Apache Kafka release's jars, so it runs the same Java client on every side).
//
//   java -cp <kafka libs>/*:<classes> CtpChain <bootstrap> <client.properties> <source> <sink> <group> <members> <records> <timeoutMs>
//
// <members> threads, each one member of consumer group <group> (classic protocol, auto commit off) with its own
// idempotent acks=all producer. Each poll's records are produced to <sink> (same key and value; the "transform"
// is the hand-over), the producer is flushed (every record acknowledged) and then the poll's offsets are
// committed synchronously — at-least-once, as a chain without transactions is written. It stops once the
// members together have committed <records> records; prints `chain <ms> ms, <records> records, <polls> polls,
// <commits> commits` (wall time from the consumers' start to the last commit) and exits 0, or exits 1 on a
// timeout or an error.
import java.io.FileInputStream;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

public final class CtpChain {
  public static void main(String[] args) throws Exception {
    if (args.length != 9 || !(args[8].equals("poll") || args[8].equals("end"))) {
      System.err.println("usage: CtpChain <bootstrap> <client.properties> <source> <sink> <group> <members> <records> <timeoutMs> <poll|end>");
      System.exit(2);
    }
    String bootstrap = args[0];
    Properties common = new Properties();
    try (FileInputStream in = new FileInputStream(args[1])) {
      common.load(in);
    }
    String source = args[2];
    String sink = args[3];
    String group = args[4];
    int members = Integer.parseInt(args[5]);
    long records = Long.parseLong(args[6]);
    long deadline = System.currentTimeMillis() + Long.parseLong(args[7]);
    boolean flushEachPoll = args[8].equals("poll");

    AtomicLong committed = new AtomicLong();
    AtomicLong polls = new AtomicLong();
    AtomicLong commits = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long started = System.nanoTime();
    Thread[] threads = new Thread[members];
    for (int m = 0; m < members; m++) {
      final int member = m;
      threads[m] = new Thread(() -> {
        Properties cp = new Properties();
        cp.putAll(common);
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        cp.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        cp.put(ConsumerConfig.CLIENT_ID_CONFIG, group + "-consumer-" + member);
        cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        Properties pp = new Properties();
        pp.putAll(common);
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.CLIENT_ID_CONFIG, group + "-producer-" + member);
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cp); KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp)) {
          consumer.subscribe(Collections.singletonList(source));
          while (committed.get() < records && failure.get() == null) {
            if (System.currentTimeMillis() > deadline) throw new IllegalStateException("timed out with " + committed.get() + " of " + records + " records committed");
            ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(100));
            if (batch.isEmpty()) continue;
            polls.incrementAndGet();
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            for (TopicPartition tp : batch.partitions()) {
              List<ConsumerRecord<byte[], byte[]>> part = batch.records(tp);
              for (ConsumerRecord<byte[], byte[]> r : part) producer.send(new ProducerRecord<>(sink, r.key(), r.value()));
              offsets.put(tp, new OffsetAndMetadata(part.get(part.size() - 1).offset() + 1));
            }
            if (flushEachPoll) producer.flush();
            consumer.commitSync(offsets);
            commits.incrementAndGet();
            committed.addAndGet(batch.count());
          }
          producer.flush();
        } catch (Throwable t) {
          failure.compareAndSet(null, t);
        }
      }, "member-" + m);
      threads[m].start();
    }
    for (Thread t : threads) t.join();
    long ms = (System.nanoTime() - started) / 1_000_000;
    if (failure.get() != null) {
      failure.get().printStackTrace();
      System.exit(1);
    }
    System.out.println("chain " + ms + " ms, " + committed.get() + " records, " + polls.get() + " polls, " + commits.get() + " commits");
  }
}

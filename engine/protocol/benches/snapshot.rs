//! Snapshot codec benchmarks: encode and decode of a 128-record snapshot, the cost of
//! stitching one more peer's packet from pre-encoded records, and bytes per record.
//!
//! Run: `cargo bench -p fl-protocol --bench snapshot`

use criterion::{Criterion, criterion_group, criterion_main};
use fl_protocol::snapshot::{
    Compression, EncodedEntity, EntityState, RecordBody, RecordKind, SnapshotDecoder,
    SnapshotRecord, SnapshotWriter, origin_for,
};
use fl_protocol::tlv::{Ext, Extensions};
use std::hint::black_box;

/// 128 aircraft in a furball ~40 km across (a few shared origins), deterministic.
fn furball() -> Vec<EntityState> {
    (0..128u32)
        .map(|i| {
            let a = f64::from(i) * 0.7;
            EntityState {
                idx: i + 1,
                generation: 1 + i / 100,
                type_index: i % 6,
                faction_index: (i % 2) as u16,
                position: [
                    20_000.0 * a.cos() + f64::from(i) * 13.7,
                    3_000.0 + f64::from(i % 17) * 250.0,
                    20_000.0 * a.sin() - f64::from(i) * 7.3,
                ],
                orientation: {
                    let (s, c) = (a * 0.5).sin_cos();
                    [0.1 * s, s * 0.9, 0.05, c]
                },
                velocity: [220.0 * a.sin(), f64::from(i % 5) - 2.0, 220.0 * a.cos()],
                omega: [0.3, -0.05, 0.1],
                damage_level: (i % 3) as u8,
                engine_fail_flags: 0,
                throttle_pct: 60 + (i % 40) as u8,
                fuel_pct: 70,
                ab_engaged: i % 7 == 0,
                player_owned: i % 2 == 0,
            }
        })
        .collect()
}

fn peer_ext() -> Extensions {
    let mut ext = Extensions::new();
    let _ = ext.push(&Ext::SnapshotPeerCount(64));
    let _ = ext.push(&Ext::SnapshotLastAckedSeqNum(12_345));
    ext
}

/// One peer's packet: own entity full with omega, every tenth entity full, the rest deltas.
fn stitch(
    writer: &mut SnapshotWriter,
    encoded: &[EncodedEntity],
    own: &RecordBody,
    ext: &Extensions,
    compression: Compression,
    out: &mut Vec<u8>,
) {
    writer.begin();
    for (i, e) in encoded.iter().enumerate() {
        let body = if i == 0 {
            own
        } else if i % 10 == 0 {
            &e.full
        } else {
            &e.delta
        };
        let _ = writer.push(e.origin, body);
    }
    let _ = writer.finish(9_000, ext, compression, out);
}

fn benches(c: &mut Criterion) {
    let states = furball();
    let ext = peer_ext();
    let own_origin = origin_for(states[0].position);
    let own = RecordBody::encode(&SnapshotRecord::quantize(
        &states[0],
        0,
        own_origin,
        RecordKind::FULL.with_omega(),
    ));

    // Bytes per record, printed once.
    let o = origin_for(states[1].position);
    let size = |kind| {
        RecordBody::encode(&SnapshotRecord::quantize(&states[1], 0, o, kind))
            .as_bytes()
            .len()
    };
    println!(
        "bytes per record body (+1 originIndex byte when stitched): own full {}, full {}, delta {}",
        own.as_bytes().len(),
        size(RecordKind::FULL),
        size(RecordKind::DELTA)
    );

    let mut writer = SnapshotWriter::new();
    let mut out = Vec::new();
    let encoded: Vec<EncodedEntity> = states.iter().map(EncodedEntity::encode).collect();
    stitch(
        &mut writer,
        &encoded,
        &own,
        &ext,
        Compression::Off,
        &mut out,
    );
    let raw_packet = out.clone();
    stitch(
        &mut writer,
        &encoded,
        &own,
        &ext,
        Compression::WhenSmaller { level: 1 },
        &mut out,
    );
    let compressed_packet = out.clone();
    println!(
        "128-record snapshot: {} bytes raw, {} bytes compressed ({} origins)",
        raw_packet.len(),
        compressed_packet.len(),
        u16::from_le_bytes([raw_packet[16], raw_packet[17]])
    );

    c.bench_function(
        "encode 128-record snapshot (quantize + encode + assemble, raw)",
        |b| {
            b.iter(|| {
                let encoded: Vec<EncodedEntity> = black_box(&states)
                    .iter()
                    .map(EncodedEntity::encode)
                    .collect();
                stitch(
                    &mut writer,
                    &encoded,
                    &own,
                    &ext,
                    Compression::Off,
                    &mut out,
                );
                black_box(out.len())
            })
        },
    );
    let snapshot = fl_protocol::snapshot::WorldSnapshot::decode(&raw_packet)
        .map(|(s, _)| s)
        .unwrap_or_default();
    c.bench_function(
        "encode 128-record snapshot (quantized records → packet, raw)",
        |b| b.iter(|| black_box(black_box(&snapshot).encode(&ext).map(|p| p.len()))),
    );
    c.bench_function("stitch one more peer (128 pre-encoded records, raw)", |b| {
        b.iter(|| {
            stitch(
                &mut writer,
                black_box(&encoded),
                &own,
                &ext,
                Compression::Off,
                &mut out,
            );
            black_box(out.len())
        })
    });
    c.bench_function(
        "stitch one more peer (128 records, zstd when smaller)",
        |b| {
            b.iter(|| {
                stitch(
                    &mut writer,
                    black_box(&encoded),
                    &own,
                    &ext,
                    Compression::WhenSmaller { level: 1 },
                    &mut out,
                );
                black_box(out.len())
            })
        },
    );
    let mut decoder = SnapshotDecoder::new();
    c.bench_function("decode 128-record snapshot (raw)", |b| {
        b.iter(|| {
            black_box(
                decoder
                    .decode(black_box(&raw_packet))
                    .map(|(_, s, _)| s.records.len()),
            )
        })
    });
    c.bench_function("decode 128-record snapshot (compressed)", |b| {
        b.iter(|| {
            black_box(
                decoder
                    .decode(black_box(&compressed_packet))
                    .map(|(_, s, _)| s.records.len()),
            )
        })
    });
}

criterion_group!(snapshot, benches);
criterion_main!(snapshot);

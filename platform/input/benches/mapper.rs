//! Input-to-controls latency inside the process: the CPU time from an input event reaching
//! the mapper to the [`Controls`] of the next input tick, which the client copies field by
//! field into its `MsgClientInput`. Measured with the default bindings plus a HOTAS (stick,
//! throttle with an afterburner detent, pedals) bound, a gamepad and the HOTAS connected — the
//! busiest realistic setup.
//!
//! Run: `cargo bench -p fl-input --bench mapper`

use criterion::{Criterion, criterion_group, criterion_main};
use fl_input::{
    Action, AxisPart, AxisSettings, Binding, Bindings, DeviceEvent, DeviceId, DeviceInfo,
    DeviceKind, DeviceSlot, Input, InputEvent, KeyName, Mapper, PadAxis, Slot, Source,
};
use std::hint::black_box;

const PAD: DeviceSlot = DeviceSlot(0);
const HOTAS: DeviceSlot = DeviceSlot(1 << 20);

fn setup() -> Mapper {
    let info = DeviceInfo {
        name: "HOTAS".into(),
        uuid: [0; 16],
        kind: DeviceKind::Joystick,
    };
    let id = DeviceId {
        key: DeviceId::key_of(&info),
        ordinal: 0,
    };
    let src = Source::Device(id);
    let mut b = Bindings::defaults();
    let axis = |code, s| Some(Binding::axis(Input::Axis(code, AxisPart::Whole), s));
    let set = |b: &mut Bindings, a, binding| {
        b.set(&src, a, Slot::Primary, binding)
            .expect("valid binding");
    };
    set(&mut b, Action::Pitch, axis(1, AxisSettings::default()));
    set(&mut b, Action::Roll, axis(0, AxisSettings::default()));
    set(&mut b, Action::Yaw, axis(5, AxisSettings::default()));
    set(
        &mut b,
        Action::Throttle,
        axis(
            6,
            AxisSettings {
                detent: Some(0.9),
                ..AxisSettings::default()
            },
        ),
    );
    for (a, code) in [
        (Action::Gun, 288),
        (Action::FireStore, 289),
        (Action::Gear, 290),
    ] {
        set(&mut b, a, Some(Binding::of(Input::Button(code))));
    }
    let mut m = Mapper::new(b);
    for ev in [
        DeviceEvent::Connected {
            slot: PAD,
            info: DeviceInfo {
                name: "Pad".into(),
                uuid: [1; 16],
                kind: DeviceKind::Gamepad,
            },
        },
        DeviceEvent::Connected { slot: HOTAS, info },
    ] {
        m.event(&InputEvent::Device(ev), true);
    }
    for (code, named) in [
        (0, Some(PadAxis::LeftX)),
        (1, Some(PadAxis::LeftY)),
        (3, Some(PadAxis::RightX)),
    ] {
        m.event(
            &InputEvent::Device(DeviceEvent::Axis {
                slot: PAD,
                code,
                named,
                value: 0.02,
            }),
            true,
        );
    }
    for code in [0, 1, 5, 6] {
        m.event(&InputEvent::Device(hotas_axis(code, 0.0)), true);
    }
    m
}

fn hotas_axis(code: u32, value: f32) -> DeviceEvent {
    DeviceEvent::Axis {
        slot: HOTAS,
        code,
        named: None,
        value,
    }
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("mapper");
    let mut m = setup();
    let key = KeyName::parse("S").expect("S");
    let mut pressed = false;
    g.bench_function("key event to controls", |b| {
        b.iter(|| {
            pressed = !pressed;
            m.event(
                &InputEvent::Key {
                    key: key.clone(),
                    pressed,
                    repeat: false,
                },
                true,
            );
            black_box(m.tick())
        })
    });
    let mut m = setup();
    let mut v = 0.0f32;
    g.bench_function("stick axis event to controls", |b| {
        b.iter(|| {
            v = if v > 0.9 { -0.9 } else { v + 0.01 };
            m.event(&InputEvent::Device(hotas_axis(1, v)), true);
            black_box(m.tick())
        })
    });
    let mut m = setup();
    g.bench_function("throttle lever event to controls", |b| {
        b.iter(|| {
            v = if v > 0.9 { -0.9 } else { v + 0.01 };
            m.event(&InputEvent::Device(hotas_axis(6, v)), true);
            black_box(m.tick())
        })
    });
    let mut m = setup();
    g.bench_function("button press and release to controls", |b| {
        b.iter(|| {
            for pressed in [true, false] {
                m.event(
                    &InputEvent::Device(DeviceEvent::Button {
                        slot: HOTAS,
                        code: 288,
                        named: None,
                        pressed,
                    }),
                    true,
                );
            }
            black_box(m.tick())
        })
    });
    let mut m = setup();
    g.bench_function("16 axis events then one tick", |b| {
        b.iter(|| {
            for i in 0..16 {
                v = if v > 0.9 { -0.9 } else { v + 0.01 };
                m.event(
                    &InputEvent::Device(hotas_axis([0, 1, 5, 6][i % 4], v)),
                    true,
                );
            }
            black_box(m.tick())
        })
    });
    let mut m = setup();
    g.bench_function("tick alone", |b| b.iter(|| black_box(m.tick())));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

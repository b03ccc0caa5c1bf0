//! Merging a primary (newest) schema set with an older one, so that versions the newer set has
//! dropped are still generated, with one struct per message covering every version.
//!
//! Rules:
//!
//! * A message's versions are the union of the primary set's valid versions and the older set's
//!   versions that the primary lacks ("older versions"), less the older set's latest version when
//!   its request schema marks it `latestVersionUnstable` (early access, never a released protocol).
//! * At a version both sets have, the primary wins. At an older version, the older set decides.
//! * Fields are matched by name, struct by struct. Each merged range (`versions`,
//!   `nullableVersions`, `taggedVersions`, the field's `flexibleVersions`) is chosen so that it
//!   agrees with the primary at every primary version where the enclosing struct is reachable,
//!   and with the older set at every older version where it is reachable; the primary's own
//!   range is kept when it already does, then the older set's, else the tightest range that does.
//! * Fields only the older set has join the struct, ordered after their predecessor in the older
//!   schema; fields only the primary has are absent in the older versions.
//! * Names of fields and structs, defaults and tags are the primary's. `ignorable` is the
//!   primary's when the field is absent at some primary version, else the older set's.
//! * Anything that cannot be expressed (a field present in non-contiguous versions, matched fields
//!   in a different order, types that disagree) is an error, never a guess.

use std::collections::{BTreeMap, BTreeSet};

use crate::spec::{Field, Kind, Message, Older, Range, StructDef, Ty};

/// A set of versions 0..=63 (Kafka versions stay far below).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VSet(pub u64);

impl VSet {
    pub const EMPTY: VSet = VSet(0);

    /// The versions of `r` (clipped to 0..=63).
    pub fn of(r: Range) -> VSet {
        if r.is_empty() || r.max < 0 {
            return VSet::EMPTY;
        }
        let lo = r.min.clamp(0, 63) as u32;
        let hi = r.max.clamp(0, 63) as u32;
        let bits = if hi - lo == 63 {
            u64::MAX
        } else {
            ((1u64 << (hi - lo + 1)) - 1) << lo
        };
        VSet(bits)
    }

    pub fn and(self, o: VSet) -> VSet {
        VSet(self.0 & o.0)
    }

    pub fn or(self, o: VSet) -> VSet {
        VSet(self.0 | o.0)
    }

    pub fn minus(self, o: VSet) -> VSet {
        VSet(self.0 & !o.0)
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn contains(self, v: i16) -> bool {
        (0..64).contains(&v) && self.0 & (1 << v) != 0
    }

    pub fn min(self) -> Option<i16> {
        (!self.is_empty()).then(|| self.0.trailing_zeros() as i16)
    }

    pub fn max(self) -> Option<i16> {
        (!self.is_empty()).then(|| 63 - self.0.leading_zeros() as i16)
    }

    /// The set as one range, when it is contiguous.
    pub fn as_range(self) -> Option<Range> {
        match (self.min(), self.max()) {
            (Some(min), Some(max)) if VSet::of(Range { min, max }) == self => {
                Some(Range { min, max })
            }
            (None, None) => Some(Range::NONE),
            _ => None,
        }
    }

    pub fn iter(self) -> impl Iterator<Item = i16> {
        (0..64i16).filter(move |v| self.contains(*v))
    }
}

/// Picks a range equal to `want` on every version of `domain` (`want` ⊆ `domain`): the first
/// candidate that is, else the tightest range, open-ended when `want` reaches the top of `domain`
/// and a candidate is open-ended.
fn choose(want: VSet, domain: VSet, candidates: &[Range], ctx: &str) -> Result<Range, String> {
    for c in candidates {
        if VSet::of(*c).and(domain) == want {
            return Ok(*c);
        }
    }
    let (Some(min), Some(max)) = (want.min(), want.max()) else {
        return Ok(Range::NONE);
    };
    let r = Range { min, max };
    if VSet::of(r).and(domain) != want {
        return Err(format!(
            "{ctx}: needed in versions {want:?} of {domain:?}, which no single range expresses"
        ));
    }
    if Some(max) == domain.max() && candidates.iter().any(|c| c.max == i16::MAX) {
        return Ok(Range { min, max: i16::MAX });
    }
    Ok(r)
}

/// The fields of every struct of a message by struct name (inline and common).
fn struct_fields(m: &Message) -> BTreeMap<String, &Vec<Field>> {
    fn inline<'a>(fields: &'a [Field], out: &mut BTreeMap<String, &'a Vec<Field>>) {
        for f in fields {
            if let (Some(sub), Some(sn)) = (&f.fields, f.ty.struct_name()) {
                out.insert(sn.to_string(), sub);
                inline(sub, out);
            }
        }
    }
    let mut out = BTreeMap::new();
    inline(&m.fields, &mut out);
    for c in &m.common {
        out.insert(c.name.clone(), &c.fields);
        inline(&c.fields, &mut out);
    }
    out
}

/// The versions of `root` at which each struct of `m` can be reached (the root struct under
/// the message's own name).
fn reach(m: &Message, root: VSet) -> BTreeMap<String, VSet> {
    let structs = struct_fields(m);
    let mut out: BTreeMap<String, VSet> = BTreeMap::new();
    let mut todo = vec![(m.name.clone(), root)];
    while let Some((name, vs)) = todo.pop() {
        let seen = out.entry(name.clone()).or_default();
        let new = vs.minus(*seen);
        if new.is_empty() {
            continue;
        }
        *seen = seen.or(new);
        let fields = if name == m.name {
            Some(&m.fields)
        } else {
            structs.get(&name).copied()
        };
        for f in fields.into_iter().flatten() {
            if let Some(sn) = f.ty.struct_name() {
                todo.push((sn.to_string(), new.and(VSet::of(f.versions))));
            }
        }
    }
    out
}

/// One side of a merge: a message and where its structs are reached at the versions it decides.
struct Side<'m> {
    m: &'m Message,
    reach: BTreeMap<String, VSet>,
    structs: BTreeMap<String, &'m Vec<Field>>,
}

impl<'m> Side<'m> {
    fn new(m: &'m Message, versions: VSet) -> Self {
        Side {
            m,
            reach: reach(m, versions),
            structs: struct_fields(m),
        }
    }

    fn reach_of(&self, name: &str) -> VSet {
        self.reach.get(name).copied().unwrap_or_default()
    }

    /// The versions at which `f` uses the compact (flexible) encoding.
    fn compact(&self, f: &Field) -> VSet {
        VSet::of(f.flexible_override.unwrap_or(self.m.flexible))
    }

    fn fields_of(&self, f: &Field) -> Option<&'m Vec<Field>> {
        match &f.fields {
            Some(_) => None,
            None => {
                f.ty.struct_name()
                    .and_then(|n| self.structs.get(n).copied())
            }
        }
    }
}

struct Merger<'m> {
    new: Side<'m>,
    old: Side<'m>,
    /// Older struct name → primary struct name, for structs matched through a field.
    renamed: BTreeMap<String, String>,
    /// Common structs of either side that the merged message references, by merged name.
    commons: BTreeMap<String, Common<'m>>,
}

/// A common struct to merge: its fields on the primary side, on the older side, and the schema
/// path of its first reference (for errors).
type Common<'m> = (Option<&'m Vec<Field>>, Option<&'m Vec<Field>>, String);

fn same_shape(a: &Ty, b: &Ty) -> bool {
    match (a, b) {
        (Ty::Prim(x), Ty::Prim(y)) => x == y,
        (Ty::Struct(_), Ty::Struct(_)) => true,
        (Ty::Array(x), Ty::Array(y)) => same_shape(x, y),
        _ => false,
    }
}

impl<'m> Merger<'m> {
    /// Merges the fields of one struct, reached at `dn` (primary) and `dold` (older) versions.
    fn fields(
        &mut self,
        path: &str,
        new: &'m [Field],
        old: &'m [Field],
        dn: VSet,
        dold: VSet,
    ) -> Result<Vec<Field>, String> {
        let old_by_name: BTreeMap<&str, &Field> =
            old.iter().map(|f| (f.name.as_str(), f)).collect();
        let new_names: BTreeSet<&str> = new.iter().map(|f| f.name.as_str()).collect();
        // Matched fields must come in the same order on both sides.
        let order_new: Vec<&str> = new
            .iter()
            .map(|f| f.name.as_str())
            .filter(|n| old_by_name.contains_key(n))
            .collect();
        let order_old: Vec<&str> = old
            .iter()
            .map(|f| f.name.as_str())
            .filter(|n| new_names.contains(n))
            .collect();
        if order_new != order_old {
            return Err(format!(
                "{path}: shared fields in a different order: {order_new:?} vs {order_old:?}"
            ));
        }
        let mut out = Vec::new();
        for f in new {
            out.push(self.field(
                path,
                Some(f),
                old_by_name.get(f.name.as_str()).copied(),
                dn,
                dold,
            )?);
        }
        // Older-only fields, after their predecessor in the older schema.
        let mut cursor = 0;
        for g in old {
            if new_names.contains(g.name.as_str()) {
                cursor = out
                    .iter()
                    .position(|f: &Field| f.name == g.name)
                    .map_or(cursor, |i| i + 1);
                continue;
            }
            let present_old = VSet::of(g.versions).and(dold);
            if present_old.is_empty() {
                // Only at versions the primary decides, where it has no such field.
                continue;
            }
            if !VSet::of(g.versions).and(dn).is_empty() {
                return Err(format!(
                    "{path}.{}: older-only field also present at primary versions {:?} (renamed?)",
                    g.name,
                    VSet::of(g.versions).and(dn)
                ));
            }
            let merged = self.field(path, None, Some(g), dn, dold)?;
            out.insert(cursor, merged);
            cursor += 1;
        }
        Ok(out)
    }

    fn field(
        &mut self,
        path: &str,
        new: Option<&'m Field>,
        old: Option<&'m Field>,
        dn: VSet,
        dold: VSet,
    ) -> Result<Field, String> {
        let base = new.or(old).ok_or("field on neither side")?;
        let ctx = format!("{path}.{}", base.name);
        let domain = dn.or(dold);
        let on = |f: Option<&Field>, d: VSet, r: fn(&Field) -> Range| {
            f.map_or(VSet::EMPTY, |f| VSet::of(r(f)).and(d))
        };
        let pn = on(new, dn, |f| f.versions);
        let po = on(old, dold, |f| f.versions);
        let present = pn.or(po);
        let cands = |r: fn(&Field) -> Range| -> Vec<Range> {
            new.iter().chain(old.iter()).map(|f| r(f)).collect()
        };
        let versions = choose(present, domain, &cands(|f| f.versions), &ctx)?;
        let nullable = choose(
            on(new, pn, |f| f.nullable).or(on(old, po, |f| f.nullable)),
            present,
            &cands(|f| f.nullable),
            &format!("{ctx} (nullable)"),
        )?;
        let tagged_want = on(new, pn, |f| f.tagged).or(on(old, po, |f| f.tagged));
        let tagged = choose(
            tagged_want,
            present,
            &cands(|f| f.tagged),
            &format!("{ctx} (tagged)"),
        )?;
        let tag = match (new.and_then(|f| f.tag), old.and_then(|f| f.tag)) {
            (Some(a), Some(b)) if a != b && !on(old, po, |f| f.tagged).is_empty() => {
                return Err(format!("{ctx}: tag {a} here, {b} in the older schema"));
            }
            (Some(a), _) => Some(a),
            (None, b) if !tagged.is_empty() => b,
            _ => None,
        };
        // Compactness of the length encoding wherever the field is present.
        let compact_want = new
            .map_or(VSet::EMPTY, |f| self.new.compact(f).and(pn))
            .or(old.map_or(VSet::EMPTY, |f| self.old.compact(f).and(po)));
        let merged_flexible = self.merged_flexible();
        let flexible_override = [
            new.and_then(|f| f.flexible_override),
            old.and_then(|f| f.flexible_override),
        ]
        .into_iter()
        .chain([None])
        .find(|o| VSet::of(o.unwrap_or(merged_flexible)).and(present) == compact_want)
        .ok_or_else(|| format!("{ctx}: no flexible encoding range fits both schemas"))?;
        // `ignorable` matters where the field is absent.
        let ignorable = match (new, old) {
            (Some(n), _) if !dn.minus(pn).is_empty() => n.ignorable,
            (_, Some(o)) if !dold.minus(po).is_empty() => o.ignorable,
            _ => base.ignorable,
        };
        if let (Some(n), Some(o)) = (new, old) {
            if !same_shape(&n.ty, &o.ty) {
                return Err(format!(
                    "{ctx}: type {} here, {} in the older schema",
                    n.ty.json(),
                    o.ty.json()
                ));
            }
            if n.default != o.default && !dold.minus(po).is_empty() {
                return Err(format!(
                    "{ctx}: default {:?} here, {:?} in the older schema",
                    n.default, o.default
                ));
            }
        }
        let fields = match base.ty.struct_name() {
            None => None,
            Some(name) => {
                let new_name = new.and_then(|f| f.ty.struct_name());
                let old_name = old.and_then(|f| f.ty.struct_name());
                if let (Some(nn), Some(on)) = (new_name, old_name)
                    && nn != on
                {
                    self.renamed.insert(on.to_string(), nn.to_string());
                }
                let sdn = new_name.map_or(VSet::EMPTY, |n| self.new.reach_of(n));
                let sdo = old_name.map_or(VSet::EMPTY, |n| self.old.reach_of(n));
                let nf = new.and_then(|f| f.fields.as_ref());
                let of = old.and_then(|f| f.fields.as_ref());
                match (new, nf, of) {
                    // Inline on the primary side (or older-only inline): merge here.
                    (Some(_), Some(nf), _) => {
                        let of = of.or_else(|| old.and_then(|f| self.old.fields_of(f)));
                        Some(self.fields(&ctx, nf, of.map_or(&[][..], |v| v), sdn, sdo)?)
                    }
                    (None, _, Some(of)) => Some(self.fields(&ctx, &[], of, sdn, sdo)?),
                    // A common struct: merged once, with every reference's versions.
                    _ => {
                        let e = self.commons.entry(name.to_string()).or_insert((
                            None,
                            None,
                            ctx.clone(),
                        ));
                        if let Some(f) = new {
                            e.0 = e.0.or_else(|| self.new.fields_of(f));
                        }
                        if let Some(f) = old {
                            e.1 = e.1.or(f.fields.as_ref()).or_else(|| self.old.fields_of(f));
                        }
                        None
                    }
                }
            }
        };
        Ok(Field {
            name: base.name.clone(),
            ty: base.ty.clone(),
            versions,
            nullable,
            tagged,
            tag,
            default: new.map_or_else(|| base.default.clone(), |f| f.default.clone()),
            ignorable,
            flexible_override,
            entity_type: base.entity_type.clone(),
            fields,
        })
    }

    fn merged_flexible(&self) -> Range {
        if self.new.m.valid.is_empty() {
            self.old.m.flexible
        } else {
            self.new.m.flexible
        }
    }
}

/// The older versions a primary message gains, given the older message and whether the
/// older set's latest version of this API is unstable.
fn older_versions(new: &Message, old: &Message, unstable_latest: bool) -> VSet {
    let mut o = VSet::of(old.valid).minus(VSet::of(new.valid));
    if unstable_latest && !old.valid.is_empty() {
        o = o.minus(VSet::of(Range {
            min: old.valid.max,
            max: old.valid.max,
        }));
    }
    o
}

/// Merges one message with its older counterpart over the versions `older` only it has.
pub fn merge_message(new: &Message, old: &Message, older: VSet) -> Result<Message, String> {
    if older.is_empty() {
        return Ok(new.clone());
    }
    let nv = VSet::of(new.valid);
    let valid = nv
        .or(older)
        .as_range()
        .ok_or_else(|| format!("{}: merged versions are not contiguous", new.file))?;
    let older_range = older
        .as_range()
        .ok_or_else(|| format!("{}: older versions are not contiguous", new.file))?;
    let flexible = if new.valid.is_empty() {
        old.flexible
    } else {
        if VSet::of(new.flexible).and(older) != VSet::of(old.flexible).and(older) {
            return Err(format!(
                "{}: flexible versions {} do not agree with the older {} at versions {older_range}",
                new.file, new.flexible, old.flexible
            ));
        }
        new.flexible
    };
    let mut mg = Merger {
        new: Side::new(new, nv),
        old: Side::new(old, older),
        renamed: BTreeMap::new(),
        commons: BTreeMap::new(),
    };
    let fields = mg.fields(&new.name, &new.fields, &old.fields, nv, older)?;
    // Common structs, until no merged struct references a new one.
    let mut common: Vec<StructDef> = Vec::new();
    let mut done = BTreeSet::new();
    loop {
        let next = mg
            .commons
            .iter()
            .find(|(n, _)| !done.contains(*n))
            .map(|(n, v)| (n.clone(), v.clone()));
        let Some((name, (nf, of, ctx))) = next else {
            break;
        };
        done.insert(name.clone());
        let old_name = mg
            .renamed
            .iter()
            .find(|(_, n)| **n == name)
            .map_or(name.clone(), |(o, _)| o.clone());
        let sdn = if nf.is_some() {
            mg.new.reach_of(&name)
        } else {
            VSet::EMPTY
        };
        let sdo = if of.is_some() {
            mg.old.reach_of(&old_name)
        } else {
            VSet::EMPTY
        };
        let merged = mg.fields(
            &ctx,
            nf.map_or(&[][..], |v| v),
            of.map_or(&[][..], |v| v),
            sdn,
            sdo,
        )?;
        common.push(StructDef {
            path: format!("{}.{name}", new.name),
            name,
            fields: merged,
            is_common: true,
            is_root: false,
        });
    }
    // Keep the primary's order of common structs, then the older-only ones in their order.
    let rank = |n: &str| {
        new.common
            .iter()
            .position(|c| c.name == n)
            .or_else(|| {
                old.common
                    .iter()
                    .position(|c| c.name == n)
                    .map(|i| i + new.common.len())
            })
            .unwrap_or(usize::MAX)
    };
    common.sort_by_key(|c| rank(&c.name));
    // Common structs of the primary that nothing reaches any more are kept as they are.
    for c in &new.common {
        if !common.iter().any(|m| m.name == c.name) {
            common.push(c.clone());
        }
    }
    common.sort_by_key(|c| rank(&c.name));
    Ok(Message {
        file: new.file.clone(),
        name: new.name.clone(),
        api_key: new.api_key,
        kind: new.kind,
        valid,
        flexible,
        fields,
        common,
        latest_unstable: new.latest_unstable,
        // A schema that keeps no version of its API (`none`) says nothing of the older ones.
        listeners: if new.valid.is_empty() {
            old.listeners.clone()
        } else {
            new.listeners.clone()
        },
        header_map: if new.valid.is_empty() {
            old.header_map.clone()
        } else {
            new.header_map.clone()
        },
        older: Some(Older {
            file: old.file.clone(),
            versions: older_range,
        }),
    })
}

/// What merging left out: (older file, versions, reason).
pub type Excluded = Vec<(String, Range, &'static str)>;

/// Merges two schema sets. Messages pair up by API key and kind, or by name for headers and data
/// schemas; older messages without a primary counterpart are an error (the primary set keeps a
/// schema for every key it ever assigned).
pub fn merge_sets(new: &[Message], old: &[Message]) -> Result<(Vec<Message>, Excluded), String> {
    let key = |m: &Message| match (m.api_key, m.kind) {
        (Some(k), Kind::Request) => format!("request {k}"),
        (Some(k), Kind::Response) => format!("response {k}"),
        _ => format!("name {}", m.name),
    };
    let unstable: BTreeSet<i16> = old
        .iter()
        .filter(|m| m.kind == Kind::Request && m.latest_unstable)
        .filter_map(|m| m.api_key)
        .collect();
    let old_by_key: BTreeMap<String, &Message> = old.iter().map(|m| (key(m), m)).collect();
    let new_keys: BTreeSet<String> = new.iter().map(key).collect();
    if let Some(k) = old_by_key.keys().find(|k| !new_keys.contains(*k)) {
        return Err(format!(
            "older schema {k} has no counterpart in the primary set"
        ));
    }
    let mut out = Vec::new();
    let mut excluded = Vec::new();
    for m in new {
        let Some(o) = old_by_key.get(&key(m)) else {
            out.push(m.clone());
            continue;
        };
        let is_unstable = m.api_key.is_some_and(|k| unstable.contains(&k));
        let gained = older_versions(m, o, is_unstable);
        let dropped = older_versions(m, o, false).minus(gained);
        if let Some(r) = dropped.as_range()
            && !r.is_empty()
        {
            excluded.push((
                o.file.clone(),
                r,
                "the older set's latest version is marked unstable (early access), and the primary set does not have it",
            ));
        }
        out.push(merge_message(m, o, gained)?);
    }
    Ok((out, excluded))
}

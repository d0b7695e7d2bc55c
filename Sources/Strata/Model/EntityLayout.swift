import Foundation
import Synchronization

/// An entity's properties by position, computed once: objects and snapshots keep their
/// values in arrays indexed by these positions, so value access needs no per-object
/// dictionaries.
final class EntityLayout: @unchecked Sendable {
    enum Kind: Equatable {
        case attribute
        case toOne
        case toMany(ordered: Bool)
        /// Fetched properties and other properties without a stored value.
        case other
    }

    let properties: [NSPropertyDescription]
    let indexByName: [String: Int]
    /// Each property's name and its UTF-8 length, for `index(of:)`.
    private let names: NameTable
    private let nameLengths: [Int]
    let kinds: [Kind]
    /// How rows of the entity store their values: attributes by their stored type.
    let valueShape: ValueShape
    /// The values a new object starts with: attribute defaults, empty relationships.
    let initialValues: ValueRow
    /// Indexes of the properties a store keeps (not transient, not fetched properties).
    let persistentIndexes: [Int]
    /// Indexes of the properties a child context's save passes to its parent: the persistent
    /// ones and transient attributes, whose values Apple's child saves push too.
    let childSaveIndexes: [Int]
    /// For each attribute, the Swift type its values are stored as, if there is one; a value
    /// set with exactly that type is stored without coercion.
    let storedTypes: [ObjectIdentifier?]
    /// Whether the property is a stored attribute with no rule but "required": any value it
    /// holds is valid, so that validation looks no further than whether there is one.
    let isRuleFreeAttribute: [Bool]
    /// Whether the property is an optional to-one relationship, which any value (or none)
    /// passes: Core Data's rules for to-one relationships are about required ones only.
    let isOptionalToOne: [Bool]
    /// The properties a save validates: attributes and relationships, not derived attributes
    /// (the store computes them) or fetched properties.
    let validatedIndexes: [Int]
    /// The positions whose value in an object is not the snapshot's: relationships (objects
    /// instead of IDs), transient attributes (their defaults) and fetched properties.
    let objectOnlyIndexes: [Int]

    init(entity: NSEntityDescription) {
        properties = entity.properties
        var indexByName: [String: Int] = [:]
        for (index, property) in properties.enumerated() where indexByName[property.name] == nil {
            indexByName[property.name] = index
        }
        self.indexByName = indexByName
        names = NameTable(properties.map(\.name))
        nameLengths = names.names.map(\.utf8.count)
        let properties = self.properties
        let kinds: [Kind] = properties.map { property in
            switch property {
            case is NSAttributeDescription: .attribute
            case let relationship as NSRelationshipDescription:
                relationship.isToMany ? .toMany(ordered: relationship.isOrdered) : .toOne
            default: .other
            }
        }
        self.kinds = kinds
        let valueShape = ValueShape(
            kinds: zip(properties, kinds).map { property, kind in
                if kind == .toOne { return .object }
                guard kind == .attribute, let attribute = property as? NSAttributeDescription else { return .any }
                return ValueShape.Kind(storedType: ManagedValueCoercion.storedType(of: attribute.attributeType))
            })
        self.valueShape = valueShape
        initialValues = ValueRow(
            zip(properties, kinds).map { property, kind -> Any? in
                switch kind {
                case .attribute: (property as? NSAttributeDescription)?.defaultValue
                case .toMany: [NSManagedObject]()
                default: nil
                }
            }, shape: valueShape)
        persistentIndexes = properties.indices.filter { index in
            !properties[index].isTransient && kinds[index] != .other
        }
        childSaveIndexes = properties.indices.filter { index in kinds[index] != .other }
        isRuleFreeAttribute = properties.map { property in
            guard let attribute = property as? NSAttributeDescription, !(attribute is NSDerivedAttributeDescription)
            else { return false }
            return !AttributeValidation.hasRules(attribute)
        }
        isOptionalToOne = zip(properties, kinds).map { property, kind in kind == .toOne && property.isOptional }
        validatedIndexes = properties.indices.filter { index in
            kinds[index] != .other && !(properties[index] is NSDerivedAttributeDescription)
        }
        objectOnlyIndexes = properties.indices.filter { index in
            kinds[index] != .attribute || properties[index].isTransient
        }
        storedTypes = properties.map { property in
            guard let attribute = property as? NSAttributeDescription,
                let type = ManagedValueCoercion.storedType(of: attribute.attributeType)
            else { return nil }
            return ObjectIdentifier(type)
        }
    }

    /// The position of a property by name, as `indexByName` gives it.
    ///
    /// Typed accessors ask at every read and write, with their names as string literals. A
    /// name found in `names` by its two words of representation costs a few instructions: a
    /// string of up to 15 UTF-8 bytes is those bytes (so equal words are equal strings), and a
    /// longer one that has the words of a name the table holds is that very string. Any other
    /// key is compared by content: most entities have a few properties, whose names are
    /// scanned (comparing a short string with names of other lengths costs less than hashing
    /// it); larger ones are hashed.
    @inline(__always)
    func index(of name: String) -> Int? {
        if let index = names.index(ofRepresentation: name) { return index }
        return index(byContentOf: name)
    }

    /// `index(of:)` for a key whose representation is no name's: compared by content. Kept
    /// out of line, so that the lookup by representation is inlined where typed accessors ask.
    @inline(never)
    private func index(byContentOf name: String) -> Int? {
        if let index = names.literalIndex(of: name, lengths: nameLengths) { return index }
        let found: Int?
        if properties.count > 16 {
            found = indexByName[name]
        } else {
            let length = name.utf8.count
            found = names.names.indices.first { nameLengths[$0] == length && names.names[$0] == name }
        }
        if let found { names.remember(literal: name, at: found) }
        return found
    }

    /// The position `index(of:)` remembers for a long literal key, if it does (for tests).
    func rememberedIndex(ofLiteral name: String) -> Int? {
        names.literalIndex(of: name, lengths: nameLengths)
    }

    /// The name of the property at `index` (without reading the property description's
    /// `name`, whose every read is checked for exclusive access).
    func name(at index: Int) -> String { names.names[index] }

    func isToMany(_ index: Int) -> Bool {
        if case .toMany = kinds[index] { return true }
        return false
    }
}

/// Property names by the words of their string representation, in an open-addressing table:
/// the table answers for keys whose representation is that of a name it holds, and only for
/// them (see `EntityLayout.index(of:)`).
///
/// The slots lie in one block the table owns, read through a pointer: every typed read asks
/// here, and reading two arrays cost a retain, a release and two bounds checks a read.
private final class NameTable {
    typealias Words = (UInt, UInt)

    /// A slot: a name's words and its position, or a position of -1 for an empty slot.
    private struct Slot {
        var words: Words
        var index: Int
    }

    /// The names by position; short ones in small-string form (a string of up to 15 UTF-8
    /// bytes made from its bytes is stored inline), as literals are.
    let names: [String]
    private let slots: UnsafeMutablePointer<Slot>
    private let mask: Int
    private let shift: UInt
    /// Long names as the literals that name them, learned at their first lookup: a literal of
    /// more than 15 bytes is not inline, so its words are not the table's, and each read of a
    /// property with a long name compared strings. A slot holds the low 56 bits of a
    /// literal's second word (its address) and, above them, the position plus one; 0 is empty.
    /// A literal lives as long as the program, so its address names its bytes; with the name's
    /// length checked too, a hit is that very name. Slots are read and written atomically and
    /// may be overwritten by another literal: they are only a cache.
    private let literals: UnsafeMutablePointer<Atomic<UInt>>
    private let literalMask: Int
    private static let addressBits: UInt = (1 << 56) - 1

    init(_ names: [String]) {
        self.names = names.map { String(decoding: Array($0.utf8), as: UTF8.self) }
        // One empty slot when the table cannot answer: every lookup then ends at once.
        var bits = 0
        if Self.hasTwoWords, !names.isEmpty {
            bits = 1
            while 1 << bits < 2 * names.count { bits += 1 }
        }
        shift = bits == 0 ? UInt(UInt.bitWidth - 1) : UInt(UInt.bitWidth - bits)
        mask = (1 << bits) - 1
        slots = UnsafeMutablePointer<Slot>.allocate(capacity: 1 << bits)
        slots.initialize(repeating: Slot(words: (0, 0), index: -1), count: 1 << bits)
        var literalBits = 0
        let longNames = names.count { $0.utf8.count > 15 }
        if Self.hasTwoWords, longNames > 0 {
            literalBits = 2
            while 1 << literalBits < 2 * longNames { literalBits += 1 }
        }
        literalMask = (1 << literalBits) - 1
        literals = UnsafeMutablePointer<Atomic<UInt>>.allocate(capacity: 1 << literalBits)
        for slot in 0..<(1 << literalBits) { (literals + slot).initialize(to: Atomic(0)) }
        guard bits > 0 else { return }
        var seen = Set<String>()
        for (index, name) in self.names.enumerated() where seen.insert(name).inserted {
            let key = Self.words(of: name)
            var slot = Self.slot(of: key, shift: shift) & mask
            while slots[slot].index >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Slot(words: key, index: index)
        }
    }

    deinit {
        slots.deallocate()
        literals.deinitialize(count: literalMask + 1)
        literals.deallocate()
    }

    /// The address word of a string that is a literal of more than 15 bytes (an immortal,
    /// large, native string: discriminator 0b1000), or `nil`.
    @inline(__always)
    private static func literalAddress(of words: Words) -> UInt? {
        words.1 >> 60 == 0b1000 ? words.1 & addressBits : nil
    }

    @inline(__always)
    private func literalSlot(of address: UInt) -> Int {
        Int(truncatingIfNeeded: (address &* 0x9E37_79B9_7F4A_7C15) >> 40) & literalMask
    }

    /// The position of the long name that `string`, a literal, was found to be before.
    func literalIndex(of string: String, lengths: [Int]) -> Int? {
        guard Self.hasTwoWords, literalMask > 0 else { return nil }
        let key = Self.words(of: string)
        guard let address = Self.literalAddress(of: key) else { return nil }
        let entry = literals[literalSlot(of: address)].load(ordering: .relaxed)
        guard entry != 0, entry & Self.addressBits == address else { return nil }
        let index = Int(entry >> 56) - 1
        // The count is the first word's low 48 bits.
        guard index >= 0, index < lengths.count, lengths[index] == Int(key.0 & ((1 << 48) - 1)) else { return nil }
        return index
    }

    /// Remembers that `string` is the name at `index`, when it is a literal of a long name.
    func remember(literal string: String, at index: Int) {
        guard Self.hasTwoWords, literalMask > 0, index < 255 else { return }
        guard let address = Self.literalAddress(of: Self.words(of: string)) else { return }
        literals[literalSlot(of: address)].store(address | UInt(index + 1) << 56, ordering: .relaxed)
    }

    /// Whether a `String` is two machine words (64-bit platforms); the table is empty otherwise.
    private static var hasTwoWords: Bool { MemoryLayout<String>.size == 2 * MemoryLayout<UInt>.size }

    @inline(__always)
    private static func words(of string: String) -> Words {
        withUnsafeBytes(of: string) { bytes in
            (bytes.load(as: UInt.self), bytes.load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt.self))
        }
    }

    @inline(__always)
    private static func slot(of words: Words, shift: UInt) -> Int {
        let mixed = (words.0 ^ (words.1 &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
        return Int(truncatingIfNeeded: mixed >> shift)
    }

    /// The position of the name whose representation `string` has, or `nil`.
    @inline(__always)
    func index(ofRepresentation string: String) -> Int? {
        guard Self.hasTwoWords else { return nil }
        let key = Self.words(of: string)
        var slot = Self.slot(of: key, shift: shift) & mask
        while true {
            let entry = slots[slot]
            if entry.index < 0 { return nil }
            if entry.words.0 == key.0 && entry.words.1 == key.1 { return entry.index }
            slot = (slot + 1) & mask
        }
    }
}

extension NSEntityDescription {
    /// The property named `name`, inherited ones included, found through the cached layout
    /// (`propertiesByName` builds a dictionary at every call).
    func property(named name: String) -> NSPropertyDescription? {
        let layout = self.layout
        return layout.index(of: name).map { layout.properties[$0] }
    }

    /// The entity's layout. Computed on first use; models must not change after that.
    /// Changing the entity's or an ancestor's properties, or its subentities, drops it.
    var layout: EntityLayout {
        let published = publishedLayout.load(ordering: .acquiring)
        if let address = UnsafeRawPointer(bitPattern: published) {
            return Unmanaged<EntityLayout>.fromOpaque(address).takeUnretainedValue()
        }
        layoutLock.lock()
        defer { layoutLock.unlock() }
        if let cached = cachedLayout { return cached }
        let layout = EntityLayout(entity: self)
        cachedLayout = layout
        publishedLayout.store(UInt(bitPattern: Unmanaged.passUnretained(layout).toOpaque()), ordering: .releasing)
        return layout
    }
}

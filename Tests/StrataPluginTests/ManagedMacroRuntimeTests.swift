import Foundation
import Strata
import Testing

/// Hand-written `@Managed` properties with Swift types read and write the object's values.
@Suite("@Managed properties at run time")
struct ManagedMacroRuntimeTests {
    @Test("non-optional scalars and strings read the model's defaults")
    func defaults() throws {
        let gadget = try TestModel.make(Gadget.self, entity: "Gadget")
        #expect(gadget.label == "")
        #expect(gadget.units == 0)
        #expect(gadget.weight == 0)
        #expect(gadget.price == 0)
        #expect(gadget.default == nil)
        #expect(gadget.owner == nil)
        #expect(gadget.tags.isEmpty)
        #expect(gadget.parts.isEmpty)
    }

    @Test("Swift-typed attributes round-trip their values")
    func attributes() throws {
        let gadget = try TestModel.make(Gadget.self, entity: "Gadget")
        let date = Date(timeIntervalSinceReferenceDate: 1_000)
        gadget.label = "lamp"
        gadget.units = 12
        gadget.price = Decimal(string: "19.99") ?? 0
        gadget.weight = 1.5
        gadget.madeAt = date
        gadget.default = "yes"
        #expect(gadget.label == "lamp")
        #expect(gadget.units == 12)
        #expect(gadget.price == Decimal(string: "19.99"))
        #expect(gadget.weight == 1.5)
        #expect(gadget.madeAt == date)
        #expect(gadget.default == "yes")
        #expect(gadget.value(forKey: "default") as? String == "yes")
        #expect(gadget.value(forKey: "units") as? Int64 == 12)
    }

    @Test("Swift collections stand for to-many relationships")
    func collections() throws {
        let gadget = try TestModel.make(Gadget.self, entity: "Gadget")
        let home = try TestModel.make(Tag.self, entity: "Tag")
        let work = try TestModel.make(Tag.self, entity: "Tag")
        let first = try TestModel.make(Step.self, entity: "Step")
        let second = try TestModel.make(Step.self, entity: "Step")
        gadget.tags = [home, work]
        gadget.parts = [second, first]
        #expect(gadget.tags == [home, work])
        #expect(gadget.parts.map(ObjectIdentifier.init) == [ObjectIdentifier(second), ObjectIdentifier(first)])
        #expect((gadget.value(forKey: "tags") as? NSSet)?.count == 2)
        #expect((gadget.value(forKey: "parts") as? NSOrderedSet)?.firstObject as? Step === second)
        gadget.tags.remove(home)
        #expect(gadget.tags == [work])
    }

    @Test("a to-one relationship holds the object")
    func toOne() throws {
        let gadget = try TestModel.make(Gadget.self, entity: "Gadget")
        let todo = try TestModel.make(Todo.self, entity: "Todo")
        gadget.owner = todo
        #expect(gadget.owner === todo)
        gadget.owner = nil
        #expect(gadget.owner == nil)
    }

    /// `@Managed var primitiveLabel` is the primitive accessor of `label` (issue 32), not a
    /// property of its own: it reads and writes `label`'s stored value without notifications.
    @Test("primitive accessors read and write the key's stored value without notifications")
    func primitiveAccessors() throws {
        let gadget = try TestModel.make(Gadget.self, entity: "Gadget")
        gadget.label = "lamp"
        #expect(gadget.changeNotices == ["label"])
        #expect(gadget.primitiveLabel == "lamp")
        gadget.primitiveLabel = "desk"
        #expect(gadget.label == "desk")
        #expect(gadget.primitiveValue(forKey: "label") as? String == "desk")
        #expect(gadget.changeNotices == ["label"])
        #expect(gadget.primitiveMadeAt == nil)
        let date = Date(timeIntervalSinceReferenceDate: 5_000)
        gadget.primitiveMadeAt = date
        #expect(gadget.madeAt == date)
        gadget.primitiveMadeAt = nil
        #expect(gadget.primitiveValue(forKey: "madeAt") == nil)
        gadget.trimmedLabel = "  shelf "
        #expect(gadget.label == "shelf")
        #expect(gadget.changeNotices == ["label", "label"])
        #expect(gadget.entity.propertiesByName["primitiveLabel"] == nil)
    }
}

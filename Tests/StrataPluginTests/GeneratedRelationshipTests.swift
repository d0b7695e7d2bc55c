import Foundation
import Strata
import Testing

/// The generated relationship properties and to-many accessors change the relationships
/// of objects. (Inverse relationships are not asserted: their maintenance comes later.)
@Suite("Generated relationship properties and accessors")
struct GeneratedRelationshipTests {
    @Test("a to-one relationship round-trips its object")
    func toOne() throws {
        let todo = try TestModel.make(Todo.self, entity: "Todo")
        let note = try TestModel.make(Note.self, entity: "Note")
        #expect(todo.note == nil)
        todo.note = note
        #expect(todo.note === note)
        todo.note = nil
        #expect(todo.note == nil)
    }

    @Test("a to-many relationship is an NSSet of the destination objects")
    func toManyProperty() throws {
        let todo = try TestModel.make(Todo.self, entity: "Todo")
        let home = try TestModel.make(Tag.self, entity: "Tag")
        #expect(todo.tags?.count ?? 0 == 0)
        todo.tags = NSSet(array: [home])
        #expect(todo.tags?.count == 1)
        #expect((todo.tags?.allObjects as? [Tag])?.first === home)
    }

    @Test("addTo and removeFrom change an unordered relationship one object at a time")
    func unorderedSingleAccessors() throws {
        let todo = try TestModel.make(Todo.self, entity: "Todo")
        let home = try TestModel.make(Tag.self, entity: "Tag")
        let work = try TestModel.make(Tag.self, entity: "Tag")
        todo.addToTags(home)
        todo.addToTags(work)
        todo.addToTags(home)
        #expect(todo.tags?.count == 2)
        #expect(todo.tags?.contains(home) == true)
        #expect(todo.tags?.contains(work) == true)
        todo.removeFromTags(home)
        #expect(todo.tags?.count == 1)
        #expect(todo.tags?.contains(home) == false)
        #expect(todo.tags?.contains(work) == true)
    }

    @Test("addTo and removeFrom take an NSSet of objects")
    func unorderedSetAccessors() throws {
        let todo = try TestModel.make(Todo.self, entity: "Todo")
        let tags = try (0..<3).map { _ in try TestModel.make(Tag.self, entity: "Tag") }
        todo.addToTags(NSSet(array: tags))
        #expect(todo.tags?.count == 3)
        todo.removeFromTags(NSSet(array: [tags[0], tags[2]]))
        #expect(todo.tags?.count == 1)
        #expect(todo.tags?.contains(tags[1]) == true)
        todo.removeFromTags(todo.tags ?? NSSet())
        #expect(todo.tags?.count ?? 0 == 0)
    }

    @Test("the generated accessors of the other side work the same way")
    func otherSideAccessors() throws {
        let tag = try TestModel.make(Tag.self, entity: "Tag")
        let todo = try TestModel.make(Todo.self, entity: "Todo")
        tag.addToTodos(todo)
        #expect((tag.todos?.allObjects as? [Todo])?.first === todo)
        tag.removeFromTodos(todo)
        #expect(tag.todos?.count ?? 0 == 0)
    }

    @Test("ordered accessors insert, add, replace and remove in order")
    func orderedSingleAccessors() throws {
        let todo = try TestModel.make(Todo.self, entity: "Todo")
        let steps = try (0..<4).map { index in
            let step = try TestModel.make(Step.self, entity: "Step")
            step.title = "step \(index)"
            return step
        }
        todo.addToSteps(steps[0])
        todo.addToSteps(steps[2])
        todo.insertIntoSteps(steps[1], at: 1)
        #expect(titles(todo) == ["step 0", "step 1", "step 2"])
        todo.replaceSteps(at: 0, with: steps[3])
        #expect(titles(todo) == ["step 3", "step 1", "step 2"])
        todo.removeFromSteps(at: 1)
        #expect(titles(todo) == ["step 3", "step 2"])
        todo.removeFromSteps(steps[3])
        #expect(titles(todo) == ["step 2"])
        #expect(todo.steps?.firstObject as? Step === steps[2])
    }

    @Test("ordered accessors take arrays, index sets and ordered sets")
    func orderedBulkAccessors() throws {
        let todo = try TestModel.make(Todo.self, entity: "Todo")
        let steps = try (0..<6).map { index in
            let step = try TestModel.make(Step.self, entity: "Step")
            step.title = "s\(index)"
            return step
        }
        todo.addToSteps(NSOrderedSet(array: [steps[0], steps[3]]))
        #expect(titles(todo) == ["s0", "s3"])
        todo.insertIntoSteps([steps[1], steps[2]], at: NSIndexSet(indexesIn: NSRange(location: 1, length: 2)))
        #expect(titles(todo) == ["s0", "s1", "s2", "s3"])
        let ends = NSMutableIndexSet(index: 0)
        ends.add(3)
        todo.replaceSteps(at: ends, with: [steps[4], steps[5]])
        #expect(titles(todo) == ["s4", "s1", "s2", "s5"])
        todo.removeFromSteps(at: NSIndexSet(indexesIn: NSRange(location: 1, length: 2)))
        #expect(titles(todo) == ["s4", "s5"])
        todo.removeFromSteps(NSOrderedSet(array: [steps[4]]))
        #expect(titles(todo) == ["s5"])
    }

    private func titles(_ todo: Todo) -> [String] {
        (todo.steps?.array as? [Step] ?? []).map { $0.title ?? "?" }
    }
}

import Foundation
import Testing

@testable import Strata

@Suite struct KeyValueAccessTests {
    private let model = todoModel()

    private func make(_ entity: String) throws -> NSManagedObject {
        NSManagedObject(entity: try #require(model.entitiesByName[entity]), insertInto: nil)
    }

    @Test func newObjectsStartAtDefaultValues() throws {
        let todo = try make("Todo")
        #expect(todo.value(forKey: "title") as? String == "")
        #expect(todo.value(forKey: "priority") as? Int16 == 2)
        #expect(todo.value(forKey: "done") as? Bool == false)
        #expect(todo.value(forKey: "dueAt") == nil)
    }

    @Test func valuesAreStoredInTheAttributesType() throws {
        let todo = try make("Todo")
        todo.setValue(7, forKey: "priority")
        #expect(todo.value(forKey: "priority") as? Int16 == 7)
        todo.setValue(NSNumber(value: 1), forKey: "done")
        #expect(todo.value(forKey: "done") as? Bool == true)
        todo.setValue(NSString(string: "Buy milk"), forKey: "title")
        #expect(todo.value(forKey: "title") as? String == "Buy milk")
        let date = Date(timeIntervalSinceReferenceDate: 1000)
        todo.setValue(date, forKey: "dueAt")
        #expect(todo.value(forKey: "dueAt") as? Date == date)
        todo.setValue(nil, forKey: "dueAt")
        #expect(todo.value(forKey: "dueAt") == nil)
        todo.setValue(NSNull(), forKey: "title")
        #expect(todo.value(forKey: "title") == nil)
    }

    @Test func unknownKeysAreRecognisable() throws {
        let todo = try make("Todo")
        #expect(todo.validateKey("title"))
        #expect(!todo.validateKey("nope"))
        todo.setValue("x", forKey: "nope")
        #expect(todo.value(forKey: "nope") == nil)
    }

    @Test func toManyRelationshipsReadAsSetsAndMutateThroughProxies() throws {
        let todo = try make("Todo")
        let tag = try make("Tag")
        #expect((todo.value(forKey: "tags") as? NSSet)?.count == 0)
        let tags = todo.mutableSetValue(forKey: "tags")
        tags.add(tag)
        #expect((todo.value(forKey: "tags") as? NSSet)?.contains(tag) == true)
        #expect(tags.count == 1)
        tags.remove(tag)
        #expect((todo.value(forKey: "tags") as? NSSet)?.count == 0)

        let first = try make("Step")
        let second = try make("Step")
        let steps = todo.mutableOrderedSetValue(forKey: "steps")
        steps.add(second)
        steps.insert(first, at: 0)
        let ordered = try #require(todo.value(forKey: "steps") as? NSOrderedSet)
        #expect(ordered.array.map { $0 as AnyObject }.elementsEqual([first, second], by: ===))
        todo.setValue([second], forKey: "steps")
        #expect((todo.value(forKey: "steps") as? NSOrderedSet)?.count == 1)
    }

    @Test func keyPathsFollowRelationships() throws {
        let step = try make("Step")
        let todo = try make("Todo")
        todo.setValue("Write tests", forKey: "title")
        step.setValue(todo, forKey: "todo")
        #expect(step.value(forKeyPath: "todo.title") as? String == "Write tests")
        step.setValue("Renamed", forKeyPath: "todo.title")
        #expect(todo.value(forKey: "title") as? String == "Renamed")
        let tag = try make("Tag")
        tag.setValue("home", forKey: "name")
        todo.mutableSetValue(forKey: "tags").add(tag)
        #expect((todo.value(forKeyPath: "tags.name") as? NSSet)?.allObjects as? [String] == ["home"])
    }

    @Test func subclassesHaveTypedAccess() throws {
        let todo = try make("Todo")
        todo.setValue(Int16(5), forKey: "priority")
        let priority: Int16 = todo._managedValue(forKey: "priority")
        let asInt: Int = todo._managedValue(forKey: "priority")
        let missing: Date? = todo._managedValue(forKey: "dueAt")
        let title: String = todo._managedValue(forKey: "title")
        #expect(priority == 5 && asInt == 5 && missing == nil && title == "")
        let tag = try make("Tag")
        todo._setManagedValue(Set([tag]), forKey: "tags")
        let tags: Set<NSManagedObject> = todo._managedValue(forKey: "tags")
        #expect(tags == [tag])
        let asNSSet: NSSet? = todo._managedValue(forKey: "tags")
        #expect(asNSSet?.count == 1)
    }
}

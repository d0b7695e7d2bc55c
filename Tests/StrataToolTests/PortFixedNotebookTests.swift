#if !canImport(Darwin)
    import CoreData
    import Testing

    /// PortFixedNotebook.swift, `strata port --fix`'s output for the Apple-style fixture, is
    /// compiled into this target; here it also runs.
    @Suite("strata port's fixed notebook")
    struct PortFixedNotebookTests {
        @Test("the fixed code compiles against CoreData and builds what the Apple-style code meant to")
        func fixedCodeRuns() {
            let sort = PortNotebookQueries.byTitle()
            #expect(sort.first?.key == "title")
            #expect(sort.first?.ascending == true)
            let request = PortNotebookQueries.countRequest()
            #expect(request.entityName == "PortNote")
            #expect(request.resultType == .countResultType)
            #expect(PortNotebookQueries.titleExpression().keyPath == "title")
            #expect(PortNotebookQueries.deleteAll().fetchRequest.entityName == "PortNote")
        }
    }
#endif

GradeReport = grade = None
